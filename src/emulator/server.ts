/**
 * The emulator over real HTTP (node:http). `startEmulator()` is what the CLI,
 * the embedded default and every integration test call. Per request: route,
 * read the body, count it, apply the rate limit and the drawn fault, run the
 * handler, answer (or drop the connection after the change was committed).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Readable } from 'node:stream';
import { colombiaToday } from '../policy/dates.js';
import { ENDPOINTS } from '../service/endpoints.js';
import { FaultInjector, type FaultDecision } from './faults.js';
import { envelope, header, isRecord, type EmulatorRequest, type Reply } from './http.js';
import { INSPECT_PREFIX, inspect } from './inspect.js';
import { loadStateFile, StateWriter } from './persistence.js';
import { frameworkError, HANDLERS, route } from './router.js';
import { loadSeedFile, parseSeed, type Seed, type SeedInput } from './seed.js';
import { EmulatorState, stateFromSeed, type StateData } from './state.js';
import { Stats } from './stats.js';

/** The few logger methods the emulator uses (a pino logger fits). */
export interface EmulatorLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface EmulatorOptions {
  /** @defaultValue '127.0.0.1' */
  host?: string;
  /** 0 = a free port. @defaultValue 0 */
  port?: number;
  /** A seed object (PRODUCT "Emulator seed file") or the path of a seed file. @defaultValue an empty seed */
  seed?: Seed | SeedInput | string;
  /** When given, state is loaded from it at start and written after every change. */
  stateFile?: string;
  logger?: EmulatorLogger;
}

export interface RunningEmulator {
  url: string;
  state: EmulatorState;
  faults: FaultInjector;
  stats: Stats;
  /** Stops listening, drops open connections and flushes the state file. Safe to call twice. */
  close(): Promise<void>;
}

const MAX_BODY = 50 * 1024 * 1024;

function readText(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function readForm(req: IncomingMessage): Promise<FormData> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const init = {
    method: req.method,
    headers,
    body: Readable.toWeb(req) as unknown as ReadableStream,
    duplex: 'half',
  };
  return new Request(`http://x${req.url ?? '/'}`, init as RequestInit).formData();
}

/** The company a request is counted and rate-limited under. */
function companyKey(req: EmulatorRequest): string {
  const fromHeader =
    header(req.headers, 'x-company-id') ?? req.url.searchParams.get('companyId') ?? undefined;
  if (fromHeader !== undefined && fromHeader !== '') return fromHeader;
  const fromForm = req.form?.get('companyId');
  if (typeof fromForm === 'string' && fromForm !== '') return fromForm;
  if (req.op === 'E4') {
    try {
      const body: unknown = JSON.parse(req.text);
      if (
        isRecord(body) &&
        (typeof body.companyId === 'number' || typeof body.companyId === 'string')
      )
        return String(body.companyId);
    } catch {
      // not JSON: counted as unknown
    }
  }
  return '-';
}

function faultReply(op: EmulatorRequest['op'], status: 500 | 502): Reply {
  const message =
    status === 500
      ? 'Error inesperado procesando la solicitud.'
      : 'Error de comunicación con la autoridad.';
  if (ENDPOINTS[op].style === 'envelope')
    return { status, body: envelope(status, false, null, [message]) };
  return {
    status,
    body: {
      status,
      error: status === 500 ? 'Internal Server Error' : 'Bad Gateway',
      message,
      details: [],
      correlationId: 'emulator-fault',
    },
  };
}

function send(res: ServerResponse, reply: Reply): void {
  const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    'content-type':
      typeof reply.body === 'string' ? 'text/plain; charset=utf-8' : 'application/json',
    'content-length': Buffer.byteLength(text),
    ...reply.headers,
  });
  res.end(text);
}

async function resolveSeed(seed: EmulatorOptions['seed']): Promise<Seed> {
  if (typeof seed === 'string') return loadSeedFile(seed);
  return parseSeed(seed ?? {});
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const seed = await resolveSeed(options.seed);
  const logger = options.logger;
  let data: StateData = stateFromSeed(seed);
  let writer: StateWriter | undefined;
  if (options.stateFile !== undefined) {
    const saved = await loadStateFile(options.stateFile);
    if (saved !== undefined) {
      // The saved world wins; a company added to the seed since then joins it.
      const known = new Set(saved.companies.map((c) => c.id));
      saved.companies.push(...data.companies.filter((c) => !known.has(c.id)));
      data = saved;
    }
    writer = new StateWriter(options.stateFile, () => state.data);
  }
  const state: EmulatorState = new EmulatorState(
    data,
    () => colombiaToday(Date.now(), seed.today),
    () => writer?.schedule(),
  );
  if (writer !== undefined) state.changed();
  const faults = new FaultInjector(seed.faults);
  const stats = new Stats();
  const sockets = new Set<Socket>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'http://emulator');
    // Inspection requests are not service traffic: they do not count in the stats.
    if (url.pathname.startsWith(INSPECT_PREFIX)) {
      send(res, inspect({ state, faults, stats }, method, url, await readText(req)));
      return;
    }
    stats.begin();
    res.on('close', () => stats.end());
    const routed = route(method, url.pathname);
    if (routed.kind !== 'operation') {
      const reply =
        routed.kind === 'not-found'
          ? frameworkError(404, 'Not Found', url.pathname)
          : frameworkError(405, 'Method Not Allowed', url.pathname);
      stats.record(routed.kind, reply.status);
      send(res, reply);
      return;
    }
    const { op, params } = routed;
    stats.operationBegin(op);
    res.on('close', () => stats.operationEnd(op));
    const request: EmulatorRequest = { op, method, url, headers: req.headers, params, text: '' };
    if (ENDPOINTS[op].body === 'multipart') {
      try {
        request.form = await readForm(req);
      } catch (err) {
        request.formError = `no se pudo leer el formulario multipart (${(err as Error).message})`;
      }
    } else {
      request.text = await readText(req);
    }
    const now = Date.now();
    const company = companyKey(request);
    stats.arrival(company, now, op);
    if (faults.overRateLimit(company, now)) {
      stats.fault('rate-limit');
      stats.record(op, 429);
      send(res, {
        status: 429,
        headers: { 'retry-after': '1' },
        body: {
          status: 429,
          error: 'Too Many Requests',
          message: `Más de ${faults.current.rateLimitPerSecond} solicitudes por segundo para la empresa ${company}.`,
        },
      });
      return;
    }
    let decision: FaultDecision = 'none';
    if (faults.appliesTo(op)) {
      const delay = faults.delayMs();
      decision = faults.decide();
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    }
    if (decision === 'reset') {
      stats.fault('reset');
      stats.record(op, 0);
      req.socket.destroy();
      return;
    }
    if (decision === 'error' || decision === 'bad-gateway') {
      stats.fault(decision);
      const reply = faultReply(op, decision === 'error' ? 500 : 502);
      stats.record(op, reply.status);
      send(res, reply);
      return;
    }
    let reply: Reply;
    try {
      reply = await HANDLERS[op](state, request);
    } catch (err) {
      logger?.error({ err, op }, 'emulator handler failed');
      reply = faultReply(op, 500);
    }
    if (decision === 'drop-after-commit') {
      // The change is committed (the document is recorded); the client never hears about it.
      stats.fault('drop-after-commit');
      stats.record(op, 0);
      req.socket.destroy();
      return;
    }
    stats.record(op, reply.status);
    send(res, reply);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      logger?.error({ err }, 'emulator request failed');
      if (!res.headersSent)
        send(res, { status: 500, body: { status: 500, error: 'Internal Server Error' } });
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  logger?.info({ url, companies: state.data.companies.length }, 'emulator listening');

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await stopped;
      await writer?.flush();
    })();
    return closing;
  };
  return { url, state, faults, stats, close };
}
