/**
 * The folders the daemon writes, checked at start with the configuration key that names each: a folder the
 * process cannot write (a relative path that landed in a read-only install folder, a service user without
 * rights, ProtectSystem=strict) would otherwise show only when the first report or the stop writes there.
 * Each is made when missing, then a probe file is written and removed. A full disk is not this check's
 * business (the start waits for space: EDOC_STORAGE_FULL).
 */
import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { EdocError } from '../errors.js';
import { makeFolder } from '../storage/make-folder.js';

/** The folders to check, each with the key it comes from. */
export function writableFolders(config: Readonly<Config>): { key: string; dir: string }[] {
  const out = [
    { key: 'paths.state', dir: config.paths.state },
    { key: 'paths.outbox', dir: config.paths.outbox },
    { key: 'paths.outbox (its archive/ folder)', dir: path.join(config.paths.outbox, 'archive') },
  ];
  if (config.service.baseUrl === 'embedded' && config.emulator.state !== undefined) {
    out.push({ key: 'emulator.state', dir: path.dirname(config.emulator.state) });
  }
  return out;
}

/** Throws EDOC_CONFIG_NOT_WRITABLE (exit 2) naming the configuration file, the key and the folder. */
export async function checkWritableFolders(
  config: Readonly<Config>,
  configFile: string,
): Promise<void> {
  for (const { key, dir } of writableFolders(config)) {
    const probe = path.join(dir, `.edoc-write-probe-${randomBytes(4).toString('hex')}`);
    try {
      await makeFolder(dir, 0o700);
      await writeFile(probe, '', { mode: 0o600 });
      await rm(probe, { force: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      if (code === 'ENOSPC' || code === 'EDQUOT') continue;
      throw new EdocError(
        'EDOC_CONFIG_NOT_WRITABLE',
        `${configFile}: ${key}: this process cannot write ${dir} (${code}); ` +
          'give the service user write access to it, or set the key to a folder it can write (relative paths resolve against ' +
          "the configuration file's folder)",
        { file: configFile, path: key, dir, errno: code },
        { cause: err },
      );
    }
  }
}
