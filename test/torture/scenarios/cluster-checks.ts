/**
 * What the cluster torture checks once every node stopped, from the emulator's own records (what the
 * "authority" issued, its busiest sliding second per company), the outbox and archive, and SQL reads of
 * the PostgreSQL ledger. Each check gives numbers for the report and, when it fails, short problem lines.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ResultJson, TestCompany } from '../../helpers/daemon-harness.js';
import type { EmulatorClient } from '../../helpers/emulator-client.js';
import type { LedgerReader } from '../../helpers/cluster-project.js';
import type { MappedProject } from '../../helpers/torture-project.js';
import { markerOf, outboxLook, type PlannedFile } from './cluster-plan.js';

export interface NumberedCheck {
  numbered: number;
  lost: number;
  duplicated: number;
  extra: number;
  /** In doubt for a repeated number (the first answer was lost): held once at the emulator with our request? */
  numberedInDoubt: number;
  inDoubtNotOurs: number;
}

export async function checkNumbered(
  plan: readonly PlannedFile[],
  client: EmulatorClient,
  ledger: LedgerReader,
  problems: string[],
): Promise<NumberedCheck> {
  const out: NumberedCheck = {
    numbered: 0,
    lost: 0,
    duplicated: 0,
    extra: 0,
    numberedInDoubt: 0,
    inDoubtNotOurs: 0,
  };
  const byCompany = new Map<TestCompany, number[]>();
  for (const f of plan)
    if (f.kind === 'invoice')
      byCompany.set(f.company, [...(byCompany.get(f.company) ?? []), ...f.numbers]);
  const doubts = await ledger.query<{ key: string; request: string }>(`SELECT d.key AS key,
    CASE WHEN b.request_is_raw <> 0 THEN b.raw ELSE b.request END AS request
    FROM documents d JOIN document_bodies b ON b.id = d.id WHERE d.state = 'in-doubt' AND d.kind = 'invoice'`);
  for (const [company, numbers] of byCompany) {
    out.numbered += numbers.length;
    const held = new Map<number, unknown[]>();
    for (const d of await client.documents({
      company: company.id,
      kind: 'invoice',
      withRequest: true,
    })) {
      if (d.accepted)
        held.set(Number(d.number), [...(held.get(Number(d.number)) ?? []), d.request]);
    }
    const expected = new Set(numbers);
    const lost = numbers.filter((n) => !held.has(n));
    const twice = [...held].filter(([, r]) => r.length > 1).map(([n]) => n);
    const extra = [...held.keys()].filter((n) => !expected.has(n));
    out.lost += lost.length;
    out.duplicated += twice.length;
    out.extra += extra.length;
    if (lost.length > 0)
      problems.push(
        `${company.alias}: ${lost.length} numbered invoices never issued, e.g. SETP${lost.slice(0, 5).join(' SETP')}`,
      );
    if (twice.length > 0)
      problems.push(
        `${company.alias}: ${twice.length} numbers issued more than once, e.g. SETP${twice.slice(0, 5).join(' SETP')}`,
      );
    if (extra.length > 0)
      problems.push(`${company.alias}: ${extra.length} numbers issued that no file holds`);
    for (const d of doubts.filter((x) => x.key.startsWith(`${company.alias}/invoice/`))) {
      out.numberedInDoubt++;
      const there = held.get(Number(d.key.split('/').at(-1))) ?? [];
      if (there.length !== 1 || !isDeepStrictEqual(there[0], JSON.parse(d.request))) {
        out.inDoubtNotOurs++;
        problems.push(
          `${d.key} is in doubt and the emulator holds ${there.length} documents of that number${there.length === 1 ? ' with other content' : ''}`,
        );
      }
    }
  }
  return out;
}

export interface ServiceCheck {
  serviceNumbered: number;
  /** Markers the emulator issued more than once: 0. */
  issuedTwice: number;
  serviceAccepted: number;
  /** Reported accepted but not at the emulator: 0. */
  acceptedNotIssued: number;
  /** In doubt (no answer): listed, with whether the emulator holds them. */
  serviceInDoubt: number;
  inDoubtIssued: number;
  inDoubtList: { marker: string; issued: boolean }[];
}

export async function checkServiceNumbered(
  plan: readonly PlannedFile[],
  results: Map<PlannedFile, ResultJson>,
  client: EmulatorClient,
  ledger: LedgerReader,
  problems: string[],
): Promise<ServiceCheck> {
  const out: ServiceCheck = {
    serviceNumbered: 0,
    issuedTwice: 0,
    serviceAccepted: 0,
    acceptedNotIssued: 0,
    serviceInDoubt: 0,
    inDoubtIssued: 0,
    inDoubtList: [],
  };
  const issued = new Map<string, number>();
  for (const kind of ['support-document', 'pos']) {
    for (const d of await client.documents({ kind, withRequest: true })) {
      const m = d.accepted ? markerOf(d.request) : undefined;
      if (m !== undefined) issued.set(m, (issued.get(m) ?? 0) + 1);
    }
  }
  for (const f of plan.filter((x) => x.markers.length > 0)) {
    const r = results.get(f);
    for (const [k, marker] of f.markers.entries()) {
      out.serviceNumbered++;
      const times = issued.get(marker) ?? 0;
      if (times > 1) {
        out.issuedTwice++;
        problems.push(`${marker} (${f.name} #${k}) issued ${times} times`);
      }
      const status = r?.documents[k]?.status;
      if (status === 'accepted') {
        out.serviceAccepted++;
        if (times === 0) {
          out.acceptedNotIssued++;
          problems.push(`${marker} reported accepted, not at the emulator`);
        }
      } else if (status === 'in-doubt') {
        out.serviceInDoubt++;
        if (times > 0) out.inDoubtIssued++;
        out.inDoubtList.push({ marker, issued: times > 0 });
      }
    }
  }
  const [row] = await ledger.query<{ n: string }>(
    "SELECT count(*) AS n FROM documents WHERE state = 'in-doubt' AND kind IN ('support-document', 'pos')",
  );
  if (Number(row.n) !== out.serviceInDoubt)
    problems.push(
      `the ledger lists ${row.n} service-numbered documents in doubt, the reports ${out.serviceInDoubt}`,
    );
  return out;
}

export interface FilesCheck {
  files: number;
  reportsComplete: number;
  /** Documents neither accepted nor in doubt (rejected, invalid, failed, duplicate…): 0. */
  notSettled: number;
  /** Inputs with more than one result.json / not exactly one archived copy / still in the inbox: 0. */
  secondReports: number;
  notArchivedOnce: number;
  leftInInbox: number;
}

export async function checkFiles(
  plan: readonly PlannedFile[],
  results: Map<PlannedFile, ResultJson>,
  project: MappedProject,
  problems: string[],
): Promise<FilesCheck> {
  const out: FilesCheck = {
    files: plan.length,
    reportsComplete: 0,
    notSettled: 0,
    secondReports: 0,
    notArchivedOnce: 0,
    leftInInbox: 0,
  };
  for (const f of plan) {
    const r = results.get(f);
    const docs = f.numbers.length + f.markers.length;
    const unsettled = (r?.documents ?? []).filter(
      (d) => d.status !== 'accepted' && d.status !== 'in-doubt',
    );
    out.notSettled += unsettled.length;
    for (const d of unsettled.slice(0, 3))
      problems.push(
        `${f.name} #${d.index}: ${d.status} ${d.errors.map((e) => e.code ?? e.message).join(', ')}`,
      );
    const keysRight =
      f.kind !== 'invoice' ||
      (r?.documents ?? []).every(
        (d, k) => d.key === `${f.company.alias}/invoice/SETP/${f.numbers[k]}`,
      );
    if (
      r !== undefined &&
      r.finishedAt !== null &&
      r.counts.total === docs &&
      r.documents.length === docs &&
      r.documents.every((d, k) => d.index === k) &&
      keysRight &&
      r.counts.accepted + r.counts.inDoubt === docs
    )
      out.reportsComplete++;
    else
      problems.push(
        `${f.company.alias}/${f.name}: report incomplete: ${JSON.stringify(r?.counts ?? null)}`,
      );
    const look = await outboxLook(project, f);
    if (look.results !== 1) {
      out.secondReports++;
      problems.push(
        `${f.company.alias}/${f.name}: ${look.results} result.json files: ${look.resultNames.join('; ')}`,
      );
    }
    if (look.archived !== 1) {
      out.notArchivedOnce++;
      problems.push(`${f.company.alias}/${f.name}: ${look.archived} copies in the archive`);
    }
    if (look.inInbox) {
      out.leftInInbox++;
      problems.push(`${f.company.alias}/${f.name}: still in the inbox`);
    }
  }
  return out;
}

/** Each company's busiest sliding second at the emulator against its own cap. */
export function checkRates(
  companies: readonly TestCompany[],
  busiestSecond: Record<string, number>,
  problems: string[],
): { busiest: Record<string, string>; overCap: number } {
  const busiest: Record<string, string> = {};
  let overCap = 0;
  for (const c of companies) {
    const cap = c.rate?.requestsPerSecond ?? 0;
    const seen = busiestSecond[String(c.id)] ?? 0;
    busiest[c.alias] = `${seen}/${cap}`;
    if (seen > cap) {
      overCap++;
      problems.push(`${c.alias}: ${seen} requests in one sliding second, cap ${cap}`);
    }
  }
  return { busiest, overCap };
}
