import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/ledger/statement-churn.cjs');

describe('better-sqlite3 on this Node', () => {
  // Node 24.19 changed node::ObjectWrap; better-sqlite3 12 compiled against its
  // headers aborts the process when the garbage collector frees a Statement
  // from an idle task. The ledger prepares statements per call, so a daemon
  // would die at a random moment. This pins the build the suite runs on.
  it('survives statements collected by the garbage collector between event-loop turns', async () => {
    const result = await new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [FIXTURE, '4000'], { timeout: 120_000 }, (error, stdout, stderr) => {
        const failure = error as (Error & { code?: number; signal?: string }) | null;
        resolve({ code: failure ? (failure.code ?? null) : 0, signal: failure?.signal ?? null, stdout, stderr });
      });
    });
    expect(result.stderr).not.toMatch(/Assertion failed/);
    expect({ code: result.code, signal: result.signal }).toEqual({ code: 0, signal: null });
    expect(result.stdout).toMatch(/^survived 4000$/m);
  }, 150_000);
});
