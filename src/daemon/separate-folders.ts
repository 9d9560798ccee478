/**
 * The daemon's own folders kept apart from the inbox folders it watches: with paths.outbox equal to
 * paths.inbox every result and error report lands in a watched folder and is read as a new file, whose
 * report is read again, without end; with paths.state in a kind's inbox folder its ledger and lock are
 * read and archived away. Nor are two inbox folders one folder (a kind's folder a symbolic link to
 * another's): its files would all be read as one kind of one company. Checked at start and on reload, by real path where a folder exists (a symbolic
 * link, `..`), else as written.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { EdocError } from '../errors.js';
import { inboxFolders, outboxDir } from '../intake/folders.js';

/** The path with its deepest existing folder resolved through symbolic links. */
async function realPath(dir: string): Promise<string> {
  const rest: string[] = [];
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    try {
      return path.join(await realpath(at), ...rest.reverse());
    } catch {
      if (path.dirname(at) === at) return path.resolve(dir);
      rest.push(path.basename(at));
    }
  }
}

/** Throws EDOC_CONFIG_INVALID (exit 2) naming the key whose folder is also a watched inbox folder. */
export async function checkSeparateFolders(
  config: Readonly<Config>,
  configFile: string,
): Promise<void> {
  const watched = new Map<string, string>();
  for (const f of inboxFolders(config)) {
    const real = await realPath(f.dir);
    const other = watched.get(real);
    if (other !== undefined) {
      throw new EdocError(
        'EDOC_CONFIG_INVALID',
        `${configFile}: paths.inbox: the inbox folders of ${other} and ${f.company}/${f.kind} are one ` +
          `folder (${real}): each company's kind needs a folder of its own (a symbolic link joins them)`,
        { file: configFile, path: 'paths.inbox', dir: f.dir },
      );
    }
    watched.set(real, `${f.company}/${f.kind}`);
  }
  const own = [
    { key: 'paths.state', dir: config.paths.state },
    ...inboxFolders(config).map((f) => ({
      key: 'paths.outbox',
      dir: outboxDir(config, f.company, f.kind),
    })),
  ];
  for (const { key, dir } of own) {
    const inbox = watched.get(await realPath(dir));
    if (inbox === undefined) continue;
    throw new EdocError(
      'EDOC_CONFIG_INVALID',
      `${configFile}: ${key}: ${dir} is also the inbox folder of ${inbox}; the daemon would read what it ` +
        'writes there as new files. Give paths.inbox, paths.outbox and paths.state folders of their own',
      { file: configFile, path: key, dir },
    );
  }
}
