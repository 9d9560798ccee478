/**
 * What a company IS to a cluster node, beyond its alias: the id and NIT it sends under, its key (as a
 * fingerprint), its rate and concurrency, and the inbox folder its files are dropped in. Nodes must agree on it: two nodes that disagree on an alias's
 * id issue one file under two companies, and two caps make the company's busiest second the larger.
 * The node that claims (or renews) a company's lease records its identity on the lease row
 * (company_leases.identity, identity_node; pg-migrations.ts step 7); a node whose identity differs does not
 * claim that company while the recording node is live (lease-store.ts). The rule and what it means for a
 * legitimate change (a rotated key, a new rate): docs/cluster.md, "Company identity".
 *
 * The key never leaves the process: its fingerprint is scrypt(key, salt) with a random salt per company
 * made by the database with the lease row (company_leases.key_salt), so every node computes the same
 * fingerprint while a table of precomputed keys is of no use, and each guess of a key from a leaked
 * fingerprint costs a 32 MiB scrypt (~0.1 s of a core).
 */
import { scrypt } from 'node:crypto';
import type { CompanyConfig } from '../config/schema.js';

/** The fields compared, in the order an error line names them. */
export interface CompanyIdentity {
  id: number;
  nit: string;
  /** `scrypt:` and the key's fingerprint (base64url), never the key. */
  key: string;
  requestsPerSecond: number;
  concurrency: number;
  /**
   * The company's inbox folder under `paths.inbox`: its alias with several companies configured
   * (`inbox/<alias>/<kind>/`), '' with one (`inbox/<kind>/`). A node that lists only some of the companies
   * would otherwise watch and report in other folders than the others, and leave the files dropped where
   * they look untouched while it holds the company.
   */
  folder: string;
}

/** The configuration's words for each field (what an error line and `status` name). */
const FIELD_NAMES: Record<keyof CompanyIdentity, string> = {
  id: 'id',
  nit: 'nit',
  key: 'apiKey',
  requestsPerSecond: 'rate.requestsPerSecond',
  concurrency: 'rate.concurrency',
  folder: 'inbox folder',
};

const SCRYPT = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

const fingerprints = new Map<string, Promise<string>>();

/** The key's fingerprint under the company's salt (computed once per key and salt in this process). */
export function keyFingerprint(key: string, salt: string): Promise<string> {
  const cacheKey = `${salt}\0${key}`;
  let fp = fingerprints.get(cacheKey);
  if (fp === undefined) {
    fp = new Promise<string>((resolve, reject) => {
      scrypt(key, `edoc-bridge company key ${salt}`, 32, SCRYPT, (err, out) =>
        err ? reject(err) : resolve(`scrypt:${out.toString('base64url')}`),
      );
    });
    fingerprints.set(cacheKey, fp);
  }
  return fp;
}

/** `folder`: the company's inbox folder under `paths.inbox` ('' when it is the only company configured). */
export async function companyIdentity(
  company: Pick<CompanyConfig, 'id' | 'nit' | 'apiKey' | 'rate'>,
  salt: string,
  folder: string,
): Promise<CompanyIdentity> {
  return {
    id: company.id,
    nit: company.nit,
    key: await keyFingerprint(company.apiKey, salt),
    requestsPerSecond: company.rate.requestsPerSecond,
    concurrency: company.rate.concurrency,
    folder,
  };
}

/** The text stored and compared (fixed field order: equal identities give equal texts). */
export function identityText(identity: CompanyIdentity): string {
  const { id, nit, key, requestsPerSecond, concurrency, folder } = identity;
  return JSON.stringify({ id, nit, key, requestsPerSecond, concurrency, folder });
}

/**
 * The fields whose values differ between two stored identity texts, in the configuration's words
 * (`id`, `nit`, `apiKey`, `rate.requestsPerSecond`, `rate.concurrency`, `inbox folder`); every field when
 * one cannot be read.
 */
export function identityDifferences(mine: string, recorded: string): string[] {
  let a: Record<string, unknown>;
  let b: Record<string, unknown>;
  try {
    a = JSON.parse(mine) as Record<string, unknown>;
    b = JSON.parse(recorded) as Record<string, unknown>;
  } catch {
    return Object.values(FIELD_NAMES);
  }
  return (Object.keys(FIELD_NAMES) as (keyof CompanyIdentity)[])
    .filter((f) => a[f] !== b[f])
    .map((f) => FIELD_NAMES[f]);
}

/**
 * The fields that differ with the values a log line or `status` may show: id, NIT, rate and concurrency
 * are not secrets (`id 3001 here, 3002 recorded`); a key is named only (`apiKey`).
 */
export function describeDifferences(mine: string, recorded: string): string {
  const fields = identityDifferences(mine, recorded);
  let a: Record<string, unknown> = {};
  let b: Record<string, unknown> = {};
  try {
    a = JSON.parse(mine) as Record<string, unknown>;
    b = JSON.parse(recorded) as Record<string, unknown>;
  } catch {
    /* named only */
  }
  const byName = new Map(Object.entries(FIELD_NAMES).map(([k, v]) => [v, k]));
  return fields
    .map((name) => {
      const field = byName.get(name) as string;
      if (field === 'key' || a[field] === undefined || b[field] === undefined) return name;
      const shown = (v: unknown): string =>
        field === 'folder' ? `inbox/${v === '' ? '' : `${String(v)}/`}<kind>/` : String(v);
      return `${name} ${shown(a[field])} here, ${shown(b[field])} recorded`;
    })
    .join('; ');
}
