import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/torture/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 2,
    // one throwaway PostgreSQL server per run (test/helpers/postgres.ts gives each file its own database)
    globalSetup: ['test/helpers/postgres-setup.ts'],
    // the ledger's check for a statement on the executor inside its own transaction, on Node 22 too (src/ledger/sql/tx-scope.ts)
    env: { EDOC_LEDGER_TX_GUARD: '1' },
  },
});
