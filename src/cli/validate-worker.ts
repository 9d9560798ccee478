/**
 * The thread `edoc-bridge validate` reads its files on (validate-run.ts): `validateUnits` from the unit it
 * is told, each line handed to the main thread to print. It answers `ping` whenever its event loop turns
 * and notes the unit and row it maps in the memory both threads see (workerData.marks: unit from 1, 0
 * for none, then the row), so a row it never finishes is known by the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isEdocError } from '../errors.js';
import type { RowMark } from '../read/row-mark.js';
import { validateUnits, type ValidateParams } from './validate-units.js';

export type ToValidateWorker =
  { type: 'run'; params: ValidateParams; from: number } | { type: 'ping' };
export type FromValidateWorker =
  | { type: 'out' | 'err'; line: string }
  | { type: 'done'; failed: boolean }
  | { type: 'crash'; message: string; edoc?: string }
  | { type: 'pong' };

const port = parentPort;
if (port === null) throw new Error('validate-worker.js runs as a worker thread only');
const slots = new Int32Array((workerData as { marks: SharedArrayBuffer }).marks);
const post = (m: FromValidateWorker): void => port.postMessage(m);

/** The marks of unit `unit` (from 1), which is now the one read. */
function markOf(unit: number): RowMark {
  Atomics.store(slots, 2, unit);
  return {
    enter(row) {
      Atomics.store(slots, 1, row);
      Atomics.store(slots, 0, unit);
    },
    at(row) {
      Atomics.store(slots, 1, row);
    },
    leave() {
      Atomics.store(slots, 0, 0);
    },
  };
}

port.on('message', (m: ToValidateWorker) => {
  if (m.type === 'ping') return post({ type: 'pong' });
  const sink = {
    out: (line: string) => post({ type: 'out', line }),
    err: (line: string) => post({ type: 'err', line }),
  };
  validateUnits(m.params, sink, m.from, markOf).then(
    (failed) => post({ type: 'done', failed }),
    (err: unknown) =>
      post({
        type: 'crash',
        message: err instanceof Error ? err.message : String(err),
        ...(isEdocError(err) ? { edoc: err.code } : {}),
      }),
  );
});

// loaded: the watch counts this thread's silences from here (intake/worker-watch.ts)
post({ type: 'pong' });
