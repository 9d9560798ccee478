/**
 * `edoc-bridge validate` reads its files on a worker thread (validate-worker.ts), watched as the daemon's
 * intake worker is (intake/worker-watch.ts): a mapping's pattern that backtracks without end on one row's
 * cells would otherwise hold the command for good, with nothing said. A worker silent for read.stuckAfter
 * is ended; the unit it was on gets its `{ file, error }` line (EDOC_READ_STUCK naming the row), and a new
 * worker reads the units after it. Run from the TypeScript sources (no built worker), it reads in-process.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { EdocError, type ErrorCode } from '../errors.js';
import { WorkerWatch } from '../intake/worker-watch.js';
import {
  unitError,
  unitNames,
  validateUnits,
  type ValidateParams,
  type ValidateSink,
} from './validate-units.js';
import type { FromValidateWorker, ToValidateWorker } from './validate-worker.js';

const SCRIPT = new URL('./validate-worker.js', import.meta.url);
/** The worker's marks: the unit (from 1) whose row it maps, 0 for none; that row; the unit it reads. */
const IN_ROW = 0;
const ROW = 1;
const UNIT = 2;

type Ended = { type: 'done'; failed: boolean } | { type: 'stuck'; unit: number; row?: number };

/** Validates every unit of `p`, its lines to `sink`: whether one failed. */
export async function runValidate(
  p: ValidateParams,
  sink: ValidateSink,
  stuckAfterMs: number,
): Promise<boolean> {
  if (import.meta.url.endsWith('.ts')) return validateUnits(p, sink);
  const names = unitNames(p);
  let failed = false;
  for (let from = 0; from < names.length;) {
    const ended = await runFrom(p, sink, from, stuckAfterMs);
    if (ended.type === 'done') return failed || ended.failed;
    failed = true;
    const file = names[ended.unit];
    const seconds = Math.round(stuckAfterMs / 1000);
    const name = path.basename(file);
    unitError(
      p,
      file,
      ended.row === undefined
        ? new EdocError(
            'EDOC_READ_WORKER',
            `${name}: reading it made no progress for ${seconds} s; the rest of it was not read`,
            { file: name },
          )
        : new EdocError(
            'EDOC_READ_STUCK',
            `${name}: mapping row ${ended.row} took longer than ${seconds} s (a capture pattern or row ` +
              'condition of the mapping that backtracks on its cells); the rest of the file was not read',
            { file: name, row: ended.row },
          ),
      sink,
    );
    from = ended.unit + 1;
  }
  return failed;
}

/** One worker reading units `from` on, until it is done or stuck (the unit it was on, from 0). */
function runFrom(
  p: ValidateParams,
  sink: ValidateSink,
  from: number,
  stuckAfterMs: number,
): Promise<Ended> {
  const marks = new SharedArrayBuffer(3 * 4);
  const slots = new Int32Array(marks);
  Atomics.store(slots, UNIT, from + 1);
  const worker = new Worker(SCRIPT, { workerData: { marks } });
  const post = (m: ToValidateWorker): void => worker.postMessage(m);
  return new Promise<Ended>((resolve, reject) => {
    let settled = false;
    const end = (): void => {
      settled = true;
      watch.stop();
      void worker.terminate();
    };
    const watch = new WorkerWatch({
      stuckAfterMs: () => stuckAfterMs,
      busy: () => !settled,
      ping: () => post({ type: 'ping' }),
      stuck: () => {
        const inRow = Atomics.load(slots, IN_ROW);
        const unit = (inRow === 0 ? Atomics.load(slots, UNIT) : inRow) - 1;
        end();
        resolve(
          inRow === 0
            ? { type: 'stuck', unit }
            : { type: 'stuck', unit, row: Atomics.load(slots, ROW) },
        );
      },
    });
    worker.on('message', (m: FromValidateWorker) => {
      if (settled) return;
      watch.heard();
      if (m.type === 'out') sink.out(m.line);
      else if (m.type === 'err') sink.err(m.line);
      else if (m.type === 'done') {
        end();
        resolve({ type: 'done', failed: m.failed });
      } else if (m.type === 'crash') {
        end();
        reject(
          m.edoc === undefined
            ? new Error(m.message)
            : new EdocError(m.edoc as ErrorCode, m.message),
        );
      }
    });
    const died = (why: string): void => {
      if (settled) return;
      end();
      reject(new Error(`validate: the reading thread stopped (${why})`));
    };
    worker.on('error', (err) => died(err.message));
    worker.on('exit', (code) => died(`exit code ${code}`));
    watch.spawned();
    watch.start();
    post({ type: 'run', params: p, from });
  });
}
