/**
 * How fast V8 lets the old generation grow, while the daemon and `submit` take files in.
 *
 * bin/edoc-bridge.js makes every command grow it by 20 % after a full collection, where V8 lets it
 * grow by a factor of up to 4: reading a large export makes garbage faster than a collection frees it,
 * and at V8's own growth the daemon carried some 100 MB of it through a 1,000,000-row file. For small
 * files the 20 % costs more than it saves: a burst of 200 files of 40 invoices ran 17-27 % more CPU per
 * document under it, most of it while the documents were sent (docs/benchmarks.md, "The old
 * generation's growth between large reads"). So once `betweenLargeReads` is called (the send path's
 * composition root), the slow growth holds only while a file of LARGE_READ bytes or more is being read,
 * V8's own growth otherwise. The flag is process-wide (every thread's heap); V8 reads it at each full
 * collection, so limits set before a large read stay until the next one (the memory scenario's
 * 10,000-row export, 1.7 MB, peaks about 13 MB higher; the long reads where they were).
 */
import v8 from 'node:v8';

/** The size of a file from which the old generation grows slowly while it is read. */
export const LARGE_READ = 1024 * 1024;

const SLOW = '--heap-growing-percent=20';
/** 0: V8's own growth factor (its default). */
const OWN = '--heap-growing-percent=0';

let switching = false;
/** Files of LARGE_READ bytes or more being read. */
let large = 0;
let slow = true;

function apply(): void {
  const want = !switching || large > 0;
  if (want === slow) return;
  slow = want;
  v8.setFlagsFromString(want ? SLOW : OWN);
}

/** From now on the slow growth holds only while a file of LARGE_READ bytes or more is read (see above). */
export function betweenLargeReads(): void {
  switching = true;
  apply();
}

/**
 * Counts a file of `bytes` as being read until the returned function is called (once; later calls do
 * nothing). Before `betweenLargeReads` it changes nothing.
 */
export function readingFile(bytes: number): () => void {
  if (bytes < LARGE_READ) return () => {};
  large += 1;
  apply();
  let done = false;
  return () => {
    if (done) return;
    done = true;
    large -= 1;
    apply();
  };
}

/** Whether the slow growth is set now. */
export function growsSlowly(): boolean {
  return slow;
}
