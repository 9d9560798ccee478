/** Types of scripts/pg-test-server.mjs for the test harness. */
export function findPostgres(
  env?: NodeJS.ProcessEnv,
  candidates?: readonly string[],
): { bindir: string; reason?: undefined } | { bindir?: undefined; reason: string };
