/**
 * The shipped configuration (config/edoc-bridge.yaml) rewritten for a daemon whose folders are in `dir`,
 * sending to a test emulator: folders under `dir`, the emulator's URL, a short stability window, no
 * scheduled pull, every mapping path absolute (a relative one resolves against the configuration file's
 * folder) and `mappings` in place of the shipped mapping of those kinds. A line this expects and no longer
 * finds in the shipped file fails loudly rather than leaving a test on the shipped defaults.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT } from './daemon-harness.js';

export async function shippedConfigFor(
  dir: string,
  emulatorUrl: string,
  mappings: Readonly<Record<string, string>> = {},
): Promise<string> {
  let text = await readFile(path.join(ROOT, 'config/edoc-bridge.yaml'), 'utf8');
  const swap = (from: string | RegExp, to: string): void => {
    if (typeof from === 'string' ? !text.includes(from) : !from.test(text))
      throw new Error(`config/edoc-bridge.yaml no longer holds ${String(from)}`);
    text = text.replace(from, to);
  };
  swap('baseUrl: embedded', `baseUrl: ${emulatorUrl}`);
  swap(
    'paths: { inbox: ../inbox, outbox: ../outbox, state: ../state, logs: ../logs }',
    `paths: { inbox: ${dir}/inbox, outbox: ${dir}/outbox, state: ${dir}/state, logs: ${dir}/logs }`,
  );
  for (const [kind, file] of Object.entries(mappings))
    swap(new RegExp(`^  ${kind}: \\{ mapping: [^ }]+ \\}`, 'm'), `  ${kind}: { mapping: ${file} }`);
  text = text.replaceAll('{ mapping: mappings/', `{ mapping: ${ROOT}/config/mappings/`);
  swap(
    'seed: emulator-seed.json, state: ../state/emulator-state.json',
    `seed: ${ROOT}/config/emulator-seed.json`,
  );
  swap('stableMs: 1000', 'stableMs: 200');
  swap('enabled: true, every: 15m', 'enabled: false, every: 15m');
  return text;
}
