/** What a reload changes that the daemon acts on apart from the runs: its watcher, and settings kept until a restart. */
import type { Config } from '../config/schema.js';
import { inboxFolders } from '../intake/folders.js';

/** The inbox watcher starts anew on `next`: its folders or its settings changed. */
export function restartsWatcher(before: Readonly<Config>, next: Readonly<Config>): boolean {
  return (
    JSON.stringify(inboxFolders(before)) !== JSON.stringify(inboxFolders(next)) ||
    JSON.stringify(before.watch) !== JSON.stringify(next.watch)
  );
}

/** Settings a running daemon keeps until it restarts (the service client, the ledger, the log file). */
export function restartOnly(before: Readonly<Config>, next: Readonly<Config>): string[] {
  const keys: [string, (c: Readonly<Config>) => unknown][] = [
    ...Object.keys({ ...before.service, ...next.service }).map(
      (k): [string, (c: Readonly<Config>) => unknown] => [
        `service.${k}`,
        (c) => (c.service as Record<string, unknown>)[k],
      ],
    ),
    ['emulator', (c) => c.emulator],
    ['paths.state', (c) => c.paths.state],
    ['log.file', (c) => c.log.file],
    ['ledger.url', (c) => c.ledger.url],
    ['cluster', (c) => c.cluster],
  ];
  return keys
    .filter(([, get]) => JSON.stringify(get(before)) !== JSON.stringify(get(next)))
    .map(([key]) => key);
}
