/**
 * The `--state` file: loaded at start, written atomically (temp file, fsync,
 * rename) shortly after every change, and flushed on close. Writes are
 * coalesced (a burst of documents is one write) and never overlap.
 */
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { z } from 'zod';
import { EdocError } from '../errors.js';
import type { StateData } from './state.js';

const stateFileSchema = z.looseObject({
  version: z.literal(1),
  companies: z.array(
    z.looseObject({ id: z.number(), apiKey: z.string(), ranges: z.array(z.unknown()) }),
  ),
  documents: z.array(
    z.looseObject({ company: z.number(), prefix: z.string(), number: z.string() }),
  ),
  nextDocumentId: z.number().int().positive(),
});

/** Reads a state file; undefined when it does not exist yet. */
export async function loadStateFile(file: string): Promise<StateData | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new EdocError(
      'EDOC_EMULATOR_STATE_INVALID',
      `Emulator state ${file} cannot be read`,
      { file },
      { cause: err },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new EdocError(
      'EDOC_EMULATOR_STATE_INVALID',
      `Emulator state ${file} is not valid JSON`,
      { file },
      { cause: err },
    );
  }
  const parsed = stateFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new EdocError(
      'EDOC_EMULATOR_STATE_INVALID',
      `Emulator state ${file} invalid at ${issue.path.join('.')}: ${issue.message}`,
      { file },
    );
  }
  return json as StateData;
}

export async function writeAtomic(file: string, text: string): Promise<void> {
  const temp = `${file}.${process.pid}.tmp`;
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, file);
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw err;
  }
}

export class StateWriter {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;
  private lastError: unknown;

  constructor(
    private readonly file: string,
    private readonly snapshot: () => StateData,
    private readonly delayMs = 20,
  ) {}

  /** Marks the state changed; the write follows within `delayMs`. */
  schedule(): void {
    this.dirty = true;
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.writeNow();
    }, this.delayMs);
  }

  private writeNow(): Promise<void> {
    this.writing = this.writing.then(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      try {
        await writeAtomic(this.file, JSON.stringify(this.snapshot()));
      } catch (err) {
        this.lastError = err;
      }
    });
    return this.writing;
  }

  /** Writes whatever is pending and waits for it (on close). */
  async flush(): Promise<void> {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    await this.writeNow();
    if (this.lastError !== undefined) {
      const err = this.lastError;
      this.lastError = undefined;
      throw new EdocError(
        'EDOC_EMULATOR_STATE_WRITE',
        `Emulator state ${this.file} could not be written`,
        { file: this.file },
        { cause: err },
      );
    }
  }
}
