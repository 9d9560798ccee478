import { defineConfig } from 'vitest/config';

// `npm run torture`: the long reliability suites (issue 8). Their short versions run in `npm test` from test/reliability.
export default defineConfig({
  test: {
    include: ['test/torture/**/*.test.ts'],
    testTimeout: 1_800_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // One suite at a time: the crash suite's kill moments and the rate checks need the cores.
    maxWorkers: 1,
    fileParallelism: false,
    globalSetup: ['test/helpers/postgres-setup.ts'],
    // the ledger's check for a statement on the executor inside its own transaction, on Node 22 too (src/ledger/sql/tx-scope.ts)
    env: { EDOC_LEDGER_TX_GUARD: '1' },
  },
});
