/**
 * Taking one ready file in, as the pipeline does it (pipeline.ts `take`): skipped when its company is not
 * configured or not run here (a cluster node without its lease) or the pipeline is stopping; deferred while
 * a full disk (or an unreachable ledger) holds the intake; else read into the ledger (intake/intake.ts),
 * and its done markers removed once the file is in the ledger for good. A lease the fence refused drops
 * the company here at once, so whoever takes it next recovers it and takes its inbox files again.
 */
import type { CompanyRun } from '../company/company-run.js';
import type { CompanyRuns } from '../company/company-runs.js';
import type { Config } from '../config/schema.js';
import { isEdocError } from '../errors.js';
import { removeMarker } from '../intake/folders.js';
import { intakeFile, ledgerUnavailable, markerDone, type IntakeContext } from '../intake/intake.js';
import type { PipelineFile } from '../intake/pipeline-file.js';
import type { StorageWatch } from '../storage/storage-watch.js';
import type { Taken } from './pipeline-types.js';

export interface TakeParts {
  config: Readonly<Config>;
  signal: AbortSignal;
  storage: StorageWatch;
  /** Holds the file until space returns (intake-queue.ts). */
  defer(file: PipelineFile): void;
  /** A path of a file whose intake (begun at `since`, epoch ms) was dropped as changed: taken again. */
  changed?(path: string, since: number): void;
  companies: Pick<CompanyRuns, 'owns' | 'fenced' | 'get'>;
  /** What the intake of the file is given. */
  intake: IntakeContext;
}

/**
 * The company's identity (id, NIT) is read with its run's take gate held (company/take-gate.ts), and the
 * gate is held until the ledger recorded the file: a reload that changes the identity waits for the
 * record, and its check counts the file.
 */
export async function takeFile(parts: TakeParts, file: PipelineFile): Promise<Taken> {
  const run = parts.companies.get(file.company);
  const recorded = await run?.takes.take();
  try {
    return await takeHeld(parts, file, run, recorded);
  } finally {
    recorded?.();
  }
}

async function takeHeld(
  parts: TakeParts,
  file: PipelineFile,
  run: CompanyRun | undefined,
  recorded: (() => void) | undefined,
): Promise<Taken> {
  const company =
    run === undefined
      ? parts.config.companies.find((c) => c.alias === file.company)
      : run.state === 'closed'
        ? undefined
        : run.company;
  // cluster mode: another node owns the company (it takes the file); this one takes it again if it gains the company
  if (!company || parts.signal.aborted || !parts.companies.owns(company.alias))
    return { outcome: 'skipped' };
  if (parts.storage.paused) {
    parts.defer(file);
    return { outcome: 'deferred' };
  }
  const logger = parts.intake.logger;
  const started = Date.now();
  try {
    const result = await intakeFile(parts.intake, {
      path: file.path,
      kind: file.kind,
      company,
      size: file.size,
      mtimeMs: file.mtimeMs,
      ...(file.originalName === undefined ? {} : { originalName: file.originalName }),
      ...(file.parts === undefined ? {} : { parts: file.parts }),
      ...(recorded === undefined ? {} : { recorded }),
    });
    // the marker has done its work once the file is in the ledger for good; a file that changed, or whose read was
    // interrupted by shutdown, keeps it (taken again)
    if (file.marker !== undefined && markerDone(result.outcome))
      await removeMarker(file.marker, logger);
    if (file.parts !== undefined && markerDone(result.outcome))
      for (const part of [file.parts.header, file.parts.lines])
        if (part.marker !== undefined) await removeMarker(part.marker, logger);
    // its size and mtime may be the ones it was offered with (a rewrite that kept them): no event offers it again
    if (result.outcome === 'changed')
      for (const p of file.parts ? [file.parts.header.path, file.parts.lines.path] : [file.path])
        parts.changed?.(p, started);
    return result;
  } catch (err) {
    // A full disk or an unreachable ledger: taken again (read on) once it can be written. Lease refused by the fence:
    // the company is dropped here at once, so whoever takes it next (another node, or this one at its next beat
    // when the lease had only lapsed) recovers it and takes its inbox files again, this one included.
    if (isEdocError(err, 'EDOC_CLUSTER_FENCED')) {
      parts.companies.fenced(company.alias);
      return { outcome: 'skipped' };
    }
    if (parts.storage.report(err, 'intake', ledgerUnavailable(err))) {
      parts.defer(file);
      return { outcome: 'deferred', error: err };
    }
    throw err;
  }
}
