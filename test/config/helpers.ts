import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** A fresh folder under the OS temp dir. */
export async function tempDir(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), 'edoc-config-'));
}

/** Writes `text` as edoc-bridge.yaml in a fresh folder; returns the folder and the file. */
export async function writeConfig(text: string): Promise<{ dir: string; file: string }> {
  const dir = await tempDir();
  const file = path.join(dir, 'edoc-bridge.yaml');
  await writeFile(file, text);
  return { dir, file };
}

export const MINIMAL = `
companies:
  - alias: main
    id: 1001
    nit: "900123456"
    apiKey: key-main-0123456789
`;
