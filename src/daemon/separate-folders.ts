/**
 * The daemon's own folders kept apart from the inbox folders it watches: with paths.outbox equal to
 * paths.inbox every result and error report lands in a watched folder and is read as a new file,
 * whose report is read again, without end; with paths.state in a kind's inbox folder its ledger and
 * lock are read and archived away. Nor are two inbox folders one folder (a kind's folder a symbolic
 * link to another's): its files would all be read as one kind of one company. Checked at start and
 * on reload, by real path where a folder exists (a symbolic link, `..`), else as written.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { EdocError } from '../errors.js';
import { inboxFolders, outboxDir } from '../intake/folders.js';

/**
 * The path with its deepest existing folder resolved through symbolic links; `known` holds the folders
 * resolved so far (hundreds of companies share the same few roots).
 */
async function realPath(dir: string, known: Map<string, Promise<string>>): Promise<string> {
  const at = path.resolve(dir);
  let real = known.get(at);
  if (real === undefined) {
    real = realpath(at).catch(async () =>
      path.dirname(at) === at
        ? at
        : path.join(await realPath(path.dirname(at), known), path.basename(at)),
    );
    known.set(at, real);
  }
  return real;
}

/** Throws EDOC_CONFIG_INVALID (exit 2) naming the key whose folder is also a watched inbox folder. */
export async function checkSeparateFolders(
  config: Readonly<Config>,
  configFile: string,
): Promise<void> {
  const known = new Map<string, Promise<string>>();
  const real = (dir: string): Promise<string> => realPath(dir, known);
  const inboxes = inboxFolders(config);
  const own = [
    { key: 'paths.state', dir: config.paths.state },
    ...inboxes.map((f) => ({ key: 'paths.outbox', dir: outboxDir(config, f.company, f.kind) })),
  ];
  // at once: 200 companies' 2,800 folders took ~330 ms one by one, ~80 ms so (a start and each reload)
  const [inboxReal, ownReal] = await Promise.all([
    Promise.all(inboxes.map((f) => real(f.dir))),
    Promise.all(own.map((o) => real(o.dir))),
  ]);
  const watched = new Map<string, string>();
  for (const [i, f] of inboxes.entries()) {
    const other = watched.get(inboxReal[i]);
    if (other !== undefined) {
      throw new EdocError(
        'EDOC_CONFIG_INVALID',
        `${configFile}: paths.inbox: the inbox folders of ${other} and ${f.company}/${f.kind} are one ` +
          `folder (${inboxReal[i]}): each company's kind needs a folder of its own (a symbolic link joins them)`,
        { file: configFile, path: 'paths.inbox', dir: f.dir },
      );
    }
    watched.set(inboxReal[i], `${f.company}/${f.kind}`);
  }
  for (const [i, { key, dir }] of own.entries()) {
    const inbox = watched.get(ownReal[i]);
    if (inbox === undefined) continue;
    throw new EdocError(
      'EDOC_CONFIG_INVALID',
      `${configFile}: ${key}: ${dir} is also the inbox folder of ${inbox}; the daemon would read what it ` +
        'writes there as new files. Give paths.inbox, paths.outbox and paths.state folders of their own',
      { file: configFile, path: key, dir },
    );
  }
}
