import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const FIXTURE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../fixtures/ledger/statement-churn.cjs',
);

describe('better-sqlite3 on this Node', () => {
  // better-sqlite3 12 (built on node::ObjectWrap) compiled against Node >= 24.19
  // headers aborted the process when the garbage collector freed a Statement
  // from an idle task. The ledger prepares statements per call, so a daemon
  // would die at a random moment. This checks the binding on the Node the suite
  // runs on (13 is Node-API: no ObjectWrap).
  it('survives statements collected by the garbage collector between event-loop turns', async () => {
    const result = await new Promise<{
      code: number | null;
      signal: string | null;
      stdout: string;
      stderr: string;
    }>((resolve) => {
      execFile(
        process.execPath,
        [FIXTURE, '4000'],
        { timeout: 120_000 },
        (error, stdout, stderr) => {
          const failure = error as (Error & { code?: number; signal?: string }) | null;
          resolve({
            code: failure ? (failure.code ?? null) : 0,
            signal: failure?.signal ?? null,
            stdout,
            stderr,
          });
        },
      );
    });
    expect(result.stderr).not.toMatch(/Assertion failed/);
    expect({ code: result.code, signal: result.signal }).toEqual({ code: 0, signal: null });
    expect(result.stdout).toMatch(/^survived 4000$/m);
  }, 150_000);
});
