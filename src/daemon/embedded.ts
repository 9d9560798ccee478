/**
 * `service.baseUrl: embedded` (the shipped default) runs the bundled emulator
 * in-process on a free loopback port; anything else is the service's own URL.
 * Callers get one base URL either way and call `close()` when done (it stops
 * the emulator, or does nothing for a real service).
 */
import type { Config } from '../config/schema.js';
import { ServiceClient } from '../service/client.js';
import { startEmulator, type EmulatorLogger, type RunningEmulator } from '../emulator/server.js';
import { publishEndpoint, runningEmulatorUrl } from './embedded-endpoint.js';

export interface ResolvedService {
  /** The URL the ServiceClient talks to. */
  baseUrl: string;
  /** True when that URL is the in-process emulator, not the tax authority's service. */
  embedded: boolean;
  /** The running emulator when embedded and started here (tests and the daemon's loud log line use it). */
  emulator?: RunningEmulator;
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

export const EMBEDDED_BASE_URL = 'embedded';

export function isEmbedded(config: Pick<Config, 'service'>): boolean {
  return config.service.baseUrl === EMBEDDED_BASE_URL;
}

export async function resolveServiceUrl(
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
    emulator,
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

/**
 * The service client for the configuration and the service it resolved to: the one place its settings
 * (base URL, endpoint paths, timeout) are read, for the pipeline, the CLI's service session and
 * `received pull`.
 */
export function serviceClientFor(
  config: Readonly<Config>,
  service: ResolvedService,
): ServiceClient {
  return new ServiceClient({
    baseUrl: service.baseUrl,
    paths: config.service.paths,
    timeoutMs: config.service.timeoutMs,
  });
}
