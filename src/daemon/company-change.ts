/**
 * A reload may not hand a company's open files to another company. The ledger knows a file's company by
 * its alias only, and each request takes the alias's `id` and key as configured when it leaves: a reload
 * that gives an alias another `id` or `nit` while a file of it is open (the wrong entry edited, two
 * companies' entries swapped) would issue the rest of that file under the other company, the first
 * documents under one NIT and the others under another. Such a reload is refused, naming the company and
 * its open files; a rotated key, a new rate or user id is not an identity change and is never refused.
 * A company added back by a reload after another removed it is judged against the entry it last had here
 * (`LastEntries`), so the change cannot pass in two reloads; one this process never ran, against the
 * issuer NIT its open files were taken under (company/taken-under.ts).
 *
 * In a cluster, each node's reload is its own: a reload that gives an alias the id another alias has on
 * another live node (two companies' entries swapped on one node) would have both aliases issue under that
 * one company at once, each on its own node, since the identity rule compares one alias at a time. A
 * company added or given another id whose id another live node recorded for another alias is refused.
 */
import { openFilesText, takenUnder, takenUnderRefusal } from '../company/taken-under.js';
import type { CompanyConfig, Config } from '../config/schema.js';
import { EdocError } from '../errors.js';
import type { LedgerPort } from '../ledger/port.js';
import type { AppLogger } from '../log/logger.js';
import { normaliseIdNumber } from '../policy/nit.js';

/** A company's id as another live cluster node recorded it with its lease (cluster/lease-store.ts). */
export interface RecordedCompanyId {
  company: string;
  id: number;
  recordedBy: string;
}

/** The entry each company had when this process last ran it: one a reload removed keeps its last. */
export class LastEntries {
  private readonly last = new Map<string, CompanyConfig>();

  constructor(config: Readonly<Config>) {
    this.took(config);
  }

  /** A configuration now in force (at start, after each reload taken). */
  took(config: Readonly<Config>): void {
    for (const company of config.companies) this.last.set(company.alias, company);
  }

  /** The entry the alias last had here: in force now, or before a reload removed it. */
  of(alias: string): CompanyConfig | undefined {
    return this.last.get(alias);
  }
}

/**
 * Why `next` may not replace `before` now, or undefined: a company's id or NIT changed while files of it
 * are open, or (cluster: `recorded`) a company's new id is another alias's on another live node.
 */
export async function companyChangeRefusal(
  ledger: Pick<LedgerPort, 'openFiles' | 'openFileSamples' | 'companyIds'>,
  before: Readonly<Config>,
  next: Readonly<Config>,
  recorded?: () => Promise<RecordedCompanyId[]>,
  history: LastEntries = new LastEntries(before),
): Promise<EdocError | undefined> {
  return (
    (await openFileRefusal(ledger, history, next)) ??
    (await otherAliasRefusal(before, next, recorded))
  );
}

async function otherAliasRefusal(
  before: Readonly<Config>,
  next: Readonly<Config>,
  recorded: (() => Promise<RecordedCompanyId[]>) | undefined,
): Promise<EdocError | undefined> {
  const changed = next.companies
    .map((company, i) => ({ company, i }))
    .filter(
      ({ company }) => before.companies.find((c) => c.alias === company.alias)?.id !== company.id,
    );
  if (recorded === undefined || changed.length === 0) return undefined;
  const others = await recorded();
  for (const { company, i } of changed) {
    const other = others.find((r) => r.id === company.id && r.company !== company.alias);
    if (other === undefined) continue;
    return new EdocError(
      'EDOC_CONFIG_INVALID',
      `companies[${i}].id: ${company.id} is company ${other.company}'s id on node ${other.recordedBy} (live): ` +
        `${company.alias} and ${other.company} would both issue under company ${company.id}, each on its own node. ` +
        'Make the nodes\' configurations agree (docs/cluster.md, "Company identity")',
      { path: `companies[${i}].id`, company: company.alias },
    );
  }
  return undefined;
}

async function openFileRefusal(
  ledger: Pick<LedgerPort, 'openFiles' | 'openFileSamples' | 'companyIds'>,
  history: LastEntries,
  next: Readonly<Config>,
): Promise<EdocError | undefined> {
  const unknown = new Set<string>();
  for (const [i, company] of next.companies.entries()) {
    const was = history.of(company.alias);
    if (was === undefined) unknown.add(company.alias);
    if (was === undefined || (was.id === company.id && was.nit === company.nit)) continue;
    const open = await ledger.openFiles(company.alias);
    if (open.length === 0 || (await backToTakenUnder(ledger, was, company))) continue;
    const field = was.id !== company.id ? 'id' : 'nit';
    const changes = [
      ...(was.id === company.id ? [] : [`id ${was.id} → ${company.id}`]),
      ...(was.nit === company.nit ? [] : [`nit ${was.nit} → ${company.nit}`]),
    ].join(', ');
    return new EdocError(
      'EDOC_CONFIG_INVALID',
      `companies[${i}].${field}: company ${company.alias} would change (${changes}) while ${open.length} ` +
        `file(s) of it are open (${openFilesText(open.map((f) => f.name))}): their remaining documents would be issued under ` +
        'the other company. Reload this change once those files are final (edoc-bridge status lists them)',
      { path: `companies[${i}].${field}`, company: company.alias },
    );
  }
  return unknown.size === 0 ? undefined : takenUnderRefusal(ledger, next, (a) => unknown.has(a));
}

/**
 * Whether the change gives the company back the NIT every open file of it was taken under and the id the
 * ledger records for its files (company/taken-under.ts; a node's entry made right after the company was
 * refused to it): its files go on under their own company.
 */
async function backToTakenUnder(
  ledger: Pick<LedgerPort, 'openFileSamples' | 'companyIds'>,
  was: CompanyConfig,
  now: CompanyConfig,
): Promise<boolean> {
  const nits = await takenUnder(ledger, now.alias);
  const id = (await ledger.companyIds([now.alias])).get(now.alias);
  const idBack = id === undefined ? was.id === now.id : id === now.id;
  return idBack && nits.size === 1 && nits.has(normaliseIdNumber(now.nit));
}

/**
 * After a reload: one warning per company no longer configured whose files are still open (their
 * documents wait, listed by `edoc-bridge status`), so the work it leaves behind is not silent.
 */
export async function warnRemovedWithOpenFiles(
  ledger: Pick<LedgerPort, 'openFiles'>,
  before: Readonly<Config>,
  next: Readonly<Config>,
  logger: Pick<AppLogger, 'warn'>,
): Promise<void> {
  for (const { alias } of before.companies) {
    if (next.companies.some((c) => c.alias === alias)) continue;
    const open = await ledger.openFiles(alias);
    if (open.length === 0) continue;
    logger.warn(
      { company: alias, files: open.map((f) => f.name) },
      `company ${alias} is no longer configured: its ${open.length} open file(s) wait until a configuration ` +
        'that has it runs them (this one reloaded, or in a cluster another node); edoc-bridge status lists them',
    );
  }
}

/**
 * At start and after a reload: one warning per NIT that more than one company has. The ledger keeps each
 * company's numbers apart, so a number one of them issued is unknown to the others: the same prefix and
 * number sent by both is issued twice, once under each company id. Several companies of one NIT are
 * allowed (the service may give a NIT more than one company id, each with its own numbering), so this is
 * said, not refused.
 */
export function warnSharedNits(config: Readonly<Config>, logger: Pick<AppLogger, 'warn'>): void {
  const byNit = new Map<string, string[]>();
  for (const c of config.companies) {
    const nit = normaliseIdNumber(c.nit);
    byNit.set(nit, [...(byNit.get(nit) ?? []), c.alias]);
  }
  for (const [nit, companies] of byNit) {
    if (companies.length < 2) continue;
    logger.warn(
      { nit, companies },
      `companies ${companies.join(', ')} have the same NIT ${nit}: each one's numbers are kept apart, so a ` +
        'prefix and number sent by more than one of them is issued once under each; give them prefixes of ' +
        'their own, or one company per NIT',
    );
  }
}
