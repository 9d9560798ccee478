/**
 * How the inbox watcher decides that a file is complete, in the words the start-up log gives the
 * operator (docs/operations.md "Writers and complete files"). The rule is the same for every inbox:
 * with done-marker suffixes a data file is taken only once its marker exists; without them, a file
 * renamed in from a `*.part`/`*.tmp` name is taken at once, and any other once its size and mtime held
 * still for `stableMs`, which a writer that pauses longer than that cannot survive.
 */
import type { Config } from '../config/schema.js';

export type InboxMode = 'done-marker' | 'rename-or-stability-window';

export function inboxMode(watch: Pick<Config['watch'], 'stableMs' | 'doneMarker'>): {
  mode: InboxMode;
  text: string;
} {
  const suffixes = watch.doneMarker.suffixes;
  if (suffixes.length > 0) {
    const marker = watch.doneMarker.replaceExtension
      ? `NAME${suffixes[0]}`
      : `NAME.ext${suffixes[0]}`;
    return {
      mode: 'done-marker',
      text: `every inbox: done marker — a file is taken only once its marker (${marker}) exists`,
    };
  }
  return {
    mode: 'rename-or-stability-window',
    text:
      `every inbox: rename or stability window — a file renamed in from *.part or *.tmp is taken at once, any other once ` +
      `its size and mtime held still for ${watch.stableMs} ms; a writer that pauses longer than that needs a done marker ` +
      '(watch.doneMarker) or a rename',
  };
}
