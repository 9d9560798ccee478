import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../../src/errors.js';

const docs = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
const documented = new Set([...docs.matchAll(/^\|\s*`(EDOC_[A-Z0-9_]+)`/gm)].map((m) => m[1]));
const catalogue = new Set(Object.keys(ERRORS));

describe('the error catalogue', () => {
  it('documents every code of src/errors.ts in docs/errors.md', () => {
    expect([...catalogue].filter((code) => !documented.has(code))).toEqual([]);
  });

  it('documents no code that the catalogue does not have', () => {
    expect([...documented].filter((code) => !catalogue.has(code))).toEqual([]);
  });

  // environment variables the source names (`http.token: ${EDOC_CONSOLE_TOKEN}` in its messages; the ledger's
  // transaction guard on Node 22, ledger/sql/tx-scope.ts), not error codes
  const ENVIRONMENT_NAMES = new Set(['EDOC_CONSOLE_TOKEN', 'EDOC_LEDGER_TX_GUARD']);

  it('holds every EDOC_ code the source uses', () => {
    const used = execFileSync('grep', ['-rhoE', 'EDOC_[A-Z0-9_]+[A-Z0-9]', 'src'], {
      encoding: 'utf8',
    })
      .split('\n')
      .filter((code) => code !== '' && code !== 'EDOC_CONFIG' && !ENVIRONMENT_NAMES.has(code));
    expect([...new Set(used)].filter((code) => !catalogue.has(code))).toEqual([]);
  });
});
