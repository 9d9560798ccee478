/** One company's resolved configuration in a temporary folder, and its invoice inbox (made), for intake tests. */
import fs from 'node:fs';
import path from 'node:path';
import { resolveConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import type { IntakeContext } from '../../src/intake/intake.js';

export async function invoiceIntakeConfig(
  root: string,
): Promise<{ config: Readonly<Config>; inbox: string }> {
  const config = await resolveConfig(
    {
      companies: [
        { alias: 'main', id: 1001, nit: '900123456', apiKey: 'demo-key-1001', userId: 7 },
      ],
      paths: { inbox: 'inbox', outbox: 'outbox', state: 'state', logs: 'logs' },
    },
    { file: 'edoc-bridge.yaml', cwd: root, env: {} },
  );
  const inbox = path.join(config.paths.inbox, 'invoice');
  fs.mkdirSync(inbox, { recursive: true });
  return { config, inbox };
}

/** What intakeFile is given in these tests: no mapping (JSON), no callbacks, a fixed day. */
export function testIntakeContext(
  parts: Pick<IntakeContext, 'ledger' | 'config' | 'logger' | 'reader'>,
): IntakeContext {
  return {
    ...parts,
    today: '2026-11-22',
    mapping: async () => undefined,
    onDocuments: () => undefined,
    onFileChanged: () => undefined,
  };
}
