/**
 * Additions to the daemon harness for the reliability suites (test/torture,
 * test/reliability): a project whose configuration maps delimited files of
 * the sales kinds, a sales CSV writer for numbered invoices, an emulator that
 * can be stopped and restarted on the same port with its state, a look at the
 * outbox by original file name, and a search for secrets in every file.
 */
import { appendFileSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { colombiaDateDaysAgo } from '../fixtures/requests/index.js';
import {
  Project,
  ROOT,
  startTestEmulator,
  type ProjectOptions,
  type ResultJson,
  type TestCompany,
} from './daemon-harness.js';
import { EmulatorClient, type FaultSet } from './emulator-client.js';

export const SALES_MAPPING = path.join(ROOT, 'config/mappings/sales.csv.yaml');

/** A project whose configuration also maps `.csv` files of the sales kinds (invoice, credit and debit notes). */
export class MappedProject extends Project {
  override configText(options: ProjectOptions = this.options): string {
    const config = parse(super.configText(options)) as Record<string, unknown>;
    config.kinds = {
      invoice: { mapping: SALES_MAPPING },
      'credit-note': { mapping: SALES_MAPPING },
      'debit-note': { mapping: SALES_MAPPING },
    };
    return stringify(config);
  }
}

export async function createMappedProject(options: ProjectOptions): Promise<MappedProject> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'edoc-torture-'));
  const project = new MappedProject(dir, options);
  await project.writeConfig();
  return project;
}

export const SALES_HEADER =
  'prefijo;numero;fecha;hora;vence;moneda;tipo_operacion;cliente_tipo_doc;cliente_doc;cliente_nombre;' +
  'cliente_correo;cliente_tipo_persona;medio_pago;forma_pago;linea;codigo;descripcion;cantidad;unidad;precio_unitario;iva;' +
  'motivo;ref_documento;ref_fecha;ref_cufe';

/** dd/MM/yyyy of yesterday in Colombia (inside every date window). */
export function salesDate(): string {
  const [y, m, d] = colombiaDateDaysAgo(1).split('-');
  return `${d}/${m}/${y}`;
}

/** One sales CSV row (one line) of invoice SETP<number>; `over` replaces columns by name. */
export function salesRow(number: number, line = 1, over: Record<string, string> = {}): string {
  const values: Record<string, string> = {
    prefijo: 'SETP',
    numero: String(number),
    fecha: salesDate(),
    hora: '09:15:00',
    vence: '',
    moneda: 'COP',
    tipo_operacion: '10',
    cliente_tipo_doc: '31',
    cliente_doc: '800.197.268-4',
    cliente_nombre: 'Distribuidora Andina S.A.S.',
    cliente_correo: 'compras@andina.example',
    cliente_tipo_persona: '1',
    medio_pago: '42',
    forma_pago: '2',
    linea: String(line),
    codigo: `77020${line}`,
    descripcion: `Café molido premium 500 g (línea ${line})`,
    cantidad: '10',
    unidad: '94',
    precio_unitario: '12.500,00',
    iva: '19',
    motivo: '',
    ref_documento: '',
    ref_fecha: '',
    ref_cufe: '',
    ...over,
  };
  return SALES_HEADER.split(';')
    .map((c) => values[c] ?? '')
    .join(';');
}

/** A sales CSV (UTF-8) of invoices with the given numbers, `linesPer` rows each. */
/**
 * `origin`: an extra column the mapping ignores (`origen`), so that exports of several companies with the
 * same numbers are not the same bytes (the same content in two companies' folders is held as one export).
 */
export function salesCsv(numbers: readonly number[], linesPer = 1, origin?: string): string {
  const extra = origin === undefined ? '' : `;${origin}`;
  const rows = [SALES_HEADER + (origin === undefined ? '' : ';origen')];
  for (const n of numbers) for (let l = 1; l <= linesPer; l++) rows.push(salesRow(n, l) + extra);
  return `${rows.join('\r\n')}\r\n`;
}

// --- an emulator that can go down and come back ------------------------------------

/** The emulator on a fixed port with a state file: `stop()` takes the service down, `restart()` brings it back as it was. */
export class RestartableEmulator {
  private running: RunningEmulator | undefined;
  readonly client: EmulatorClient;

  private constructor(
    readonly url: string,
    private readonly port: number,
    private readonly stateFile: string,
    private readonly companies: readonly TestCompany[],
    private readonly faults: FaultSet,
  ) {
    this.client = new EmulatorClient(url);
  }

  static async start(
    companies: readonly TestCompany[],
    stateDir: string,
    faults: FaultSet = {},
  ): Promise<RestartableEmulator> {
    const stateFile = path.join(stateDir, 'emulator-state.json');
    const { running } = await startTestEmulator(companies, faults, { stateFile });
    const port = Number(new URL(running.url).port);
    const emu = new RestartableEmulator(running.url, port, stateFile, companies, faults);
    emu.running = running;
    return emu;
  }

  get up(): boolean {
    return this.running !== undefined;
  }

  get live(): RunningEmulator | undefined {
    return this.running;
  }

  async stop(): Promise<void> {
    const r = this.running;
    this.running = undefined;
    await r?.close();
  }

  async restart(): Promise<void> {
    if (this.running) return;
    this.running = (
      await startTestEmulator(this.companies, this.faults, {
        port: this.port,
        stateFile: this.stateFile,
      })
    ).running;
  }

  async close(): Promise<void> {
    await this.stop();
  }
}

// --- the outbox by original name -------------------------------------------------------

export interface FoundReport {
  resultPath: string;
  errorsPath: string;
  result: ResultJson;
}

/** Every NAME.result.json under an outbox kind folder, by the input file name it reports on. */
export async function reportsByFile(outboxDir: string): Promise<Map<string, FoundReport>> {
  const out = new Map<string, FoundReport>();
  let names: string[];
  try {
    names = await readdir(outboxDir);
  } catch {
    return out;
  }
  for (const name of names) {
    if (!name.endsWith('.result.json')) continue;
    const resultPath = path.join(outboxDir, name);
    try {
      const result = JSON.parse(await readFile(resultPath, 'utf8')) as ResultJson;
      out.set(result.file, {
        resultPath,
        errorsPath: resultPath.replace(/\.result\.json$/, '.errors.csv'),
        result,
      });
    } catch {
      // being replaced right now (atomic rename): the next look sees it
    }
  }
  return out;
}

// --- secrets ------------------------------------------------------------------------------

export interface SecretHit {
  file: string;
  secret: string;
}

/** Every regular file under `dir` (symbolic links not followed) that contains one of `secrets`, as bytes. */
export function findSecrets(
  dir: string,
  secrets: readonly string[],
): { hits: SecretHit[]; filesSearched: number } {
  const hits: SecretHit[] = [];
  let filesSearched = 0;
  const walk = (d: string): void => {
    let entries: string[];
    try {
      entries = readdirSync(d);
    } catch {
      return;
    }
    for (const e of entries) {
      const full = path.join(d, e);
      let st;
      try {
        st = lstatSync(full);
      } catch {
        continue;
      }
      if (st.isDirectory()) walk(full);
      else if (st.isFile()) {
        // The configuration is where the operator puts the key on purpose.
        if (path.basename(full) === 'edoc-bridge.yaml') continue;
        filesSearched++;
        const bytes = readFileSync(full);
        for (const s of secrets)
          if (bytes.includes(s)) hits.push({ file: path.relative(dir, full), secret: s });
      }
    }
  };
  walk(dir);
  return { hits, filesSearched };
}

// --- run records ------------------------------------------------------------------------------

/** Where each suite run appends its counts (one JSON line): `EDOC_TORTURE_RESULTS`, else a file in the temp folder. */
export const RUN_RECORDS =
  process.env.EDOC_TORTURE_RESULTS ?? path.join(os.tmpdir(), 'edoc-torture-results.jsonl');

export function recordRun(suite: string, counts: object): void {
  appendFileSync(
    RUN_RECORDS,
    `${JSON.stringify({ suite, at: new Date().toISOString(), ...counts })}\n`,
  );
}
