/**
 * Reaching the service, in one place for the daemon, `submit` and the commands that call the service
 * (`ranges`, `commission`, `received`): `service.baseUrl: embedded` (the shipped default) runs the bundled
 * emulator in-process on a free loopback port (or, beside a daemon that published one, talks to that
 * daemon's), anything else is the service's own URL; `openService` resolves it and makes the one client
 * for it. Callers close it when done (the client's pool, then the emulator when one was started here).
 */
import type { Config } from '../config/schema.js';
import { ServiceHealth } from '../health/service-health.js';
import { ServiceClient } from '../service/client.js';
import { startEmulator, type EmulatorLogger } from '../emulator/server.js';
import { publishEndpoint, runningEmulatorUrl } from './embedded-endpoint.js';

export interface ResolvedService {
  /** The URL the ServiceClient talks to. */
  baseUrl: string;
  /** True when that URL is the in-process emulator, not the tax authority's service. */
  embedded: boolean;
  /** True when embedded and the emulator is the running daemon's (found through the state folder), not one started here. */
  shared?: boolean;
  /** Stops the embedded emulator (flushing its state file); safe to call twice. */
  close(): Promise<void>;
}

export interface ResolveServiceOptions {
  logger?: EmulatorLogger;
  /**
   * The daemon: publish the embedded emulator's URL in `paths.state` (removed on close), so that the
   * commands run beside it use this emulator and its state instead of starting a second one on the same
   * state file. @defaultValue false
   */
  publish?: boolean;
}

const EMBEDDED_BASE_URL = 'embedded';

function isEmbedded(config: Pick<Config, 'service'>): boolean {
  return config.service.baseUrl === EMBEDDED_BASE_URL;
}

async function resolveServiceUrl(
  config: Pick<Config, 'service' | 'emulator' | 'paths'>,
  options: ResolveServiceOptions = {},
): Promise<ResolvedService> {
  if (!isEmbedded(config)) {
    return { baseUrl: config.service.baseUrl, embedded: false, close: async () => undefined };
  }
  if (options.publish !== true) {
    const url = runningEmulatorUrl(config.paths.state);
    if (url !== undefined)
      return { baseUrl: url, embedded: true, shared: true, close: async () => undefined };
  }
  // The standalone `emulator` command listens on emulator.port; the embedded one never
  // competes with it for that port, so it always takes a free one.
  const emulator = await startEmulator({
    host: '127.0.0.1',
    port: 0,
    seed: config.emulator.seed,
    ...(config.emulator.state === undefined ? {} : { stateFile: config.emulator.state }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  let unpublish: () => void = () => undefined;
  try {
    if (options.publish === true) unpublish = publishEndpoint(config.paths.state, emulator.url);
  } catch (err) {
    await emulator.close();
    throw err;
  }
  return {
    baseUrl: emulator.url,
    embedded: true,
    close: async () => {
      // flushed first: a command started in between meets a closed port (and says so) rather than a
      // second emulator loading a state about to be overwritten
      try {
        await emulator.close();
      } finally {
        unpublish();
      }
    },
  };
}

/** The service reached: where it is, the client for it, and how both end. */
export interface OpenedService {
  service: ResolvedService;
  /** The client of the configuration's settings (base URL, endpoint paths, timeout); the only one made. */
  client: ServiceClient;
  /** Closes the client's pool, then the service (the emulator started here); safe to call twice. */
  close(): Promise<void>;
}

/**
 * Resolves the service (the URL, the running daemon's emulator, or one started here) and makes its
 * client. When the client cannot be made, the emulator started for it is stopped before the error
 * goes on: nothing of a failed open stays running.
 */
export async function openService(
  config: Readonly<Config>,
  options: ResolveServiceOptions = {},
): Promise<OpenedService> {
  const service = await resolveServiceUrl(config, options);
  let client: ServiceClient;
  try {
    client = new ServiceClient({
      baseUrl: service.baseUrl,
      paths: config.service.paths,
      timeoutMs: config.service.timeoutMs,
    });
  } catch (err) {
    await service.close();
    throw err;
  }
  let closing: Promise<void> | undefined;
  return {
    service,
    client,
    close() {
      closing ??= (async () => {
        await client.close().catch(() => undefined);
        await service.close();
      })();
      return closing;
    },
  };
}

/** Whether the service answers, fed by every call of `client` (readiness, metrics and alerts read it). */
export function healthOf(client: ServiceClient): ServiceHealth {
  const health = new ServiceHealth();
  client.observe((call) => {
    if (call.httpStatus !== undefined) health.noteAnswer();
    else if (!call.aborted && call.outcome === 'transient')
      health.noteFailure(`${call.op}: no answer`);
  });
  return health;
}
