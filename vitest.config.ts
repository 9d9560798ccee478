import { defineConfig } from 'vitest/config';

/**
 * Files whose assertions depend on timing (leases and heartbeats, rate pacing, stability windows, login
 * back-off, memory under a deadline): they run after the others, two at a time, as they always have.
 */
const TIMED = [
  'test/cluster/**',
  'test/company/**',
  'test/reliability/**',
  'test/rate/**',
  'test/submit/**',
  'test/watch/**',
  'test/daemon/*crash*.test.ts',
  'test/daemon/daemon-auth-rate*.test.ts',
  'test/http/login-guard.test.ts',
  'test/http/connections.test.ts',
  'test/report/file-report.test.ts',
  'test/daemon/report-pacing.test.ts',
  'test/intake/worker-turns-long.test.ts',
  'test/cli/reload.test.ts',
  'test/cli/submit.test.ts',
  'test/emulator/cli.test.ts',
];

export default defineConfig({
  test: {
    exclude: ['test/torture/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // one throwaway PostgreSQL server per project (test/helpers/postgres.ts gives each file its own database)
    globalSetup: ['test/helpers/postgres-setup.ts'],
    // the ledger's check for a statement on the executor inside its own transaction, on Node 22 too (src/ledger/sql/tx-scope.ts)
    env: { EDOC_LEDGER_TX_GUARD: '1' },
    projects: [
      {
        // The rest spend about a third of their time waiting on child processes, files and sockets
        // (a whole run used 62 % of 2 cores with 2 workers): three at a time keep the cores busy.
        extends: true,
        test: {
          name: 'main',
          include: ['test/**/*.test.ts'],
          exclude: ['test/torture/**', ...TIMED],
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'timed',
          include: TIMED.map((glob) => (glob.endsWith('.ts') ? glob : `${glob}/*.test.ts`)),
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
