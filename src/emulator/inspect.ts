/**
 * Routes that exist only in the emulator, under `/_emulator/`: what was
 * issued, request statistics, the fault set, received documents added at
 * runtime and a stats reset. The bridge never serves or calls these in
 * production.
 */
import { z } from 'zod';
import { faultsSchema, type FaultInjector } from './faults.js';
import { issueMessages, parseIntStrict, parseJson, type Reply } from './http.js';
import { seedReceivedSchema } from './seed.js';
import type { EmulatorState } from './state.js';
import type { Stats } from './stats.js';

export const INSPECT_PREFIX = '/_emulator/';

const receivedBodySchema = z.strictObject({
  company: z.number().int(),
  documents: z.array(seedReceivedSchema),
});

export interface InspectDeps {
  state: EmulatorState;
  faults: FaultInjector;
  stats: Stats;
}

function bad(messages: string[]): Reply {
  return { status: 400, body: { error: 'Bad Request', messages } };
}

export function inspect(deps: InspectDeps, method: string, url: URL, text: string): Reply {
  const what = `${method} ${url.pathname.replace(/\/$/, '')}`;
  switch (what) {
    case 'GET /_emulator/documents': {
      const company = parseIntStrict(url.searchParams.get('company'));
      const kind = url.searchParams.get('kind');
      const withRequest = url.searchParams.get('withRequest') === 'true';
      const documents = deps.state.data.documents
        .filter(
          (d) =>
            (company === undefined || d.company === company) && (kind === null || d.kind === kind),
        )
        .map((d) => ({
          id: d.id,
          company: d.company,
          kind: d.kind,
          family: d.family,
          prefix: d.prefix,
          number: d.number,
          documentNumber: `${d.prefix}${d.number}`,
          cufe: d.cufe,
          accepted: d.accepted,
          reasons: d.reasons,
          time: d.time,
          emailed: d.emailed,
          ...(withRequest ? { request: d.request } : {}),
        }));
      return { status: 200, body: { documents } };
    }
    case 'GET /_emulator/stats':
      return { status: 200, body: deps.stats.snapshot() };
    case 'POST /_emulator/reset-stats':
      deps.stats.reset();
      return { status: 200, body: deps.stats.snapshot() };
    case 'GET /_emulator/faults':
      return { status: 200, body: deps.faults.current };
    case 'POST /_emulator/faults': {
      const json = parseJson(text === '' ? '{}' : text);
      if (!json.ok) return bad([json.message]);
      const parsed = faultsSchema.safeParse(json.value);
      if (!parsed.success) return bad(issueMessages(parsed.error.issues));
      deps.faults.replace(parsed.data);
      return { status: 200, body: parsed.data };
    }
    case 'POST /_emulator/received': {
      const json = parseJson(text);
      if (!json.ok) return bad([json.message]);
      const parsed = receivedBodySchema.safeParse(json.value);
      if (!parsed.success) return bad(issueMessages(parsed.error.issues));
      const company = deps.state.company(parsed.data.company);
      if (company === undefined) return bad([`company: ${parsed.data.company} does not exist`]);
      company.received.push(...parsed.data.documents.map((d) => ({ ...d })));
      deps.state.changed();
      return { status: 200, body: { company: company.id, received: company.received.length } };
    }
    default:
      return { status: 404, body: { error: 'Not Found', path: url.pathname } };
  }
}
