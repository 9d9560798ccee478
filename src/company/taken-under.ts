/**
 * A company's open files are sent under the company they were taken under. The ledger knows a file's
 * company by its alias, and every request leaves with the alias's `id` and key as configured when it
 * leaves: a process started with two companies' entries swapped (or the wrong entry edited) while files of
 * them are open would issue the rest of those files under the other company — one file under two NITs. A
 * reload with such a change is refused (daemon/company-change.ts); at start (at a reload that adds a
 * company this process did not run, and in a cluster when a node takes a company's lease: the node that
 * took the files may have had another entry of it), each open file's requests still name the issuer NIT
 * they were taken under, and a configuration that gives the alias another NIT is refused
 * (`EDOC_CONFIG_INVALID`), naming the company, the files and both NITs. The service company id is not in
 * the requests (it is added as each leaves): the ledger records the id the company's files are taken
 * under (ledger/company-ids.ts), and a configuration that gives an alias with files still to send another
 * id is refused the same way, naming both ids.
 */
import type { CompanyConfig } from '../config/schema.js';
import { EdocError } from '../errors.js';
import { issuerOf } from '../kinds/validate-document.js';
import type { LedgerPort } from '../ledger/port.js';
import { excerpt } from '../policy/excerpt.js';
import { normaliseIdNumber } from '../policy/nit.js';

/** Why `config` may not start on this ledger, or undefined: an alias's NIT is not the one its open files were taken under. */
export async function takenUnderRefusal(
  ledger: Pick<LedgerPort, 'openFileSamples' | 'companyIds'>,
  config: { readonly companies: readonly CompanyConfig[] },
  only: (alias: string) => boolean = () => true,
): Promise<EdocError | undefined> {
  const checked = config.companies.filter((c) => only(c.alias));
  const ids =
    checked.length === 0
      ? new Map<string, number>()
      : await ledger.companyIds(checked.map((c) => c.alias));
  for (const [i, company] of config.companies.entries()) {
    if (!only(company.alias)) continue;
    const nit = normaliseIdNumber(company.nit);
    const nits = await takenUnder(ledger, company.alias);
    const others = [...nits].filter(([n]) => n !== nit);
    const [taken, files] = others[0] ?? [];
    const id = ids.get(company.alias);
    if (taken === undefined || files === undefined) {
      if (id === undefined || id === company.id || nits.size === 0) continue;
      const all = [...nits.values()].flat();
      return new EdocError(
        'EDOC_CONFIG_INVALID',
        `companies[${i}].id: company ${company.alias} has ${all.length} open file(s) taken under company id ${id} ` +
          `(${openFilesText(all)}), and this configuration gives it id ${company.id}: their remaining documents ` +
          'would be issued under another company (the wrong entry edited). Run with the configuration they were ' +
          'taken under, and change it once they are final (edoc-bridge status lists them)',
        { path: `companies[${i}].id`, company: company.alias },
      );
    }
    return new EdocError(
      'EDOC_CONFIG_INVALID',
      `companies[${i}].nit: company ${company.alias} has ${files.length} open file(s) taken under NIT ` +
        `${excerpt(taken, 20)} (${openFilesText(files)}), and this configuration gives it NIT ${nit}: their ` +
        'remaining documents would be issued under another company (two entries swapped, or the wrong one ' +
        'edited). Run with the configuration they were taken under, and change it once they are final ' +
        '(edoc-bridge status lists them)',
      { path: `companies[${i}].nit`, company: company.alias },
    );
  }
  return undefined;
}

/** The issuer NITs (normalised) the company's open files were taken under, each with those files' names. */
export async function takenUnder(
  ledger: Pick<LedgerPort, 'openFileSamples'>,
  alias: string,
): Promise<Map<string, string[]>> {
  const nits = new Map<string, string[]>();
  for (const sample of await ledger.openFileSamples(alias)) {
    const issuer = issuerOfText(sample.kind, sample.request);
    if (issuer === undefined || issuer === '') continue;
    nits.set(issuer, [...(nits.get(issuer) ?? []), sample.fileName]);
  }
  return nits;
}

/** The first three of a company's open files, by name (each cut at 80 characters), and how many more. */
export function openFilesText(names: readonly string[]): string {
  const shown = names.slice(0, 3).map((name) => excerpt(name, 80));
  return (
    shown.join(', ') +
    (names.length > shown.length ? ` and ${names.length - shown.length} more` : '')
  );
}

/** The issuer NIT (normalised) a stored request names; undefined when it cannot be read or names none. */
function issuerOfText(
  kind: Parameters<typeof issuerOf>[0],
  text: string | null,
): string | undefined {
  if (text === null) return undefined;
  let request: unknown;
  try {
    request = JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
  const issuer = issuerOf(kind, request);
  return issuer === undefined ? undefined : normaliseIdNumber(issuer.value);
}
