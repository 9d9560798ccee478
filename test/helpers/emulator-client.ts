/**
 * The emulator's inspection routes (`/_emulator/*`) over real HTTP, for tests
 * that compare what the daemon reported with what the "authority" issued.
 */
import { SUBMISSIONS } from '../../src/emulator/faults.js';
import type { StatsSnapshot } from '../../src/emulator/stats.js';

export interface IssuedDocument {
  id: number;
  company: number;
  kind: string;
  family: string;
  prefix: string;
  number: string;
  documentNumber: string;
  cufe: string;
  accepted: boolean;
  reasons: string[];
  time: string;
  request?: unknown;
}

export interface FaultSet {
  latencyMs?: number;
  jitterMs?: number;
  errorRate?: number;
  badGatewayRate?: number;
  resetRate?: number;
  dropAfterCommitRate?: number;
  rateLimitPerSecond?: number;
  allEndpoints?: boolean;
  randomSeed?: number | null;
}

export class EmulatorClient {
  constructor(readonly url: string) {}

  /** Every document that reached the authority (accepted or rejected), optionally of one company / kind. */
  async documents(
    filter: { company?: number; kind?: string; withRequest?: boolean } = {},
  ): Promise<IssuedDocument[]> {
    const query = new URLSearchParams();
    if (filter.withRequest === true) query.set('withRequest', 'true');
    if (filter.company !== undefined) query.set('company', String(filter.company));
    if (filter.kind !== undefined) query.set('kind', filter.kind);
    const body = (await this.get(`documents?${query.toString()}`)) as {
      documents: IssuedDocument[];
    };
    return body.documents;
  }

  /** Only the accepted ones: the "issued list". */
  async issued(filter: { company?: number; kind?: string } = {}): Promise<IssuedDocument[]> {
    return (await this.documents(filter)).filter((d) => d.accepted);
  }

  async stats(): Promise<StatsSnapshot> {
    return (await this.get('stats')) as StatsSnapshot;
  }

  /**
   * Submissions (E1–E6) the emulator is answering now. Reads such as a start's E10 are not counted:
   * they arrive alongside submissions, so a count of all requests would not tell them apart.
   */
  async submissionsInFlight(): Promise<number> {
    const held = (await this.stats()).inFlightByOperation;
    return SUBMISSIONS.reduce((sum, op) => sum + (held[op] ?? 0), 0);
  }

  async resetStats(): Promise<void> {
    await this.post('reset-stats', {});
  }

  /** Replaces the whole fault set (unspecified rates become 0). */
  async setFaults(faults: FaultSet): Promise<void> {
    await this.post('faults', faults);
  }

  private async get(route: string): Promise<unknown> {
    const res = await fetch(`${this.url}/_emulator/${route}`);
    if (res.status !== 200)
      throw new Error(`GET /_emulator/${route}: HTTP ${res.status} ${await res.text()}`);
    return res.json();
  }

  private async post(route: string, body: unknown): Promise<unknown> {
    const res = await fetch(`${this.url}/_emulator/${route}`, {
      method: 'POST',
      body: JSON.stringify(body),
    });
    if (res.status !== 200)
      throw new Error(`POST /_emulator/${route}: HTTP ${res.status} ${await res.text()}`);
    return res.json();
  }
}
