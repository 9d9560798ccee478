/**
 * The `http` section: the operator listener (health, readiness, metrics, the console). Absent means
 * no listener. A listener reachable from other machines must have a token: the console can retry and
 * resolve documents, and the metrics name the companies.
 */
import { z } from 'zod';
import { isLoopbackHost } from './loopback.js';

export interface ListenAddress {
  /** As node:net takes it: no brackets around an IPv6 address. */
  host: string;
  port: number;
}

/**
 * `host:port`, `[v6]:port` or a bare `port` (loopback). Undefined when it is neither. The host is not
 * resolved here: a name that does not resolve fails when the listener starts.
 */
export function parseListen(text: string): ListenAddress | undefined {
  const match =
    /^(?:\[([0-9a-fA-F:.%\w-]+)\]|([^\s:[\]]+)):(\d{1,5})$/.exec(text.trim()) ??
    /^()()(\d{1,5})$/.exec(text.trim());
  if (match === null) return undefined;
  const port = Number(match[3]);
  if (port > 65_535) return undefined;
  const host = match[1] || match[2] || '127.0.0.1';
  return { host, port };
}

export const httpSchema = z
  .strictObject({
    /**
     * Where the operator listener binds: `127.0.0.1:9464`, `[::1]:9464`, `0.0.0.0:9464` (every
     * interface: needs `token`). Port 0 picks a free one (tests). @defaultValue '127.0.0.1:9464'
     */
    listen: z.string().trim().default('127.0.0.1:9464'),
    /**
     * Bearer token of `/metrics` and the console (also typed into the console's login form). A secret:
     * write it as `${EDOC_CONSOLE_TOKEN}`. At least 16 characters. Without it, only a loopback
     * `listen` is allowed, and then the token routes are open to whoever can reach that address.
     */
    token: z
      .string()
      .min(16, 'must be at least 16 characters (write it as ${EDOC_CONSOLE_TOKEN})')
      .optional(),
    /** An idle console session (its cookie) ends after this long. Milliseconds once parsed. @defaultValue 30 minutes */
    sessionIdleMs: z
      .preprocess(
        (v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v),
        z.number().int().min(1_000),
      )
      .default(30 * 60_000),
    /**
     * When the service has had no traffic for this long, the daemon asks it for the companies'
     * numbering ranges (E10, read-only) so that readiness and the alerts follow an outage while idle.
     * Milliseconds once parsed. @defaultValue 10000
     */
    probeIdleMs: z
      .preprocess(
        (v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v),
        z.number().int().min(100).max(20_000),
      )
      .default(10_000),
  })
  .superRefine((http, ctx) => {
    const address = parseListen(http.listen);
    if (address === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['listen'],
        message: 'must be host:port such as 127.0.0.1:9464 or [::1]:9464 (port 0-65535)',
      });
      return;
    }
    if (!isLoopbackHost(address.host) && http.token === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['token'],
        message: `is required when listen (${http.listen}) is not a loopback address: set http.token: \${EDOC_CONSOLE_TOKEN}, or listen on 127.0.0.1`,
      });
    }
  });

export type HttpConfig = z.output<typeof httpSchema>;
