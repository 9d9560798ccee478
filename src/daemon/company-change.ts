/**
 * A reload may not hand a company's open files to another company. The ledger knows a file's company by
 * its alias only, and each request takes the alias's `id` and key as configured when it leaves: a reload
 * that gives an alias another `id` or `nit` while a file of it is open (the wrong entry edited, two
 * companies' entries swapped) would issue the rest of that file under the other company, the first
 * documents under one NIT and the others under another. Such a reload is refused, naming the company and
 * its open files; a rotated key, a new rate or user id is not an identity change and is never refused.
 */
import type { Config } from '../config/schema.js';
import { EdocError } from '../errors.js';
import type { LedgerPort } from '../ledger/port.js';

/** Why `next` may not replace `before` now (a company's id or NIT changed while files of it are open), or undefined. */
export async function companyChangeRefusal(
  ledger: Pick<LedgerPort, 'openFiles'>,
  before: Readonly<Config>,
  next: Readonly<Config>,
): Promise<EdocError | undefined> {
  for (const [i, company] of next.companies.entries()) {
    const was = before.companies.find((c) => c.alias === company.alias);
    if (was === undefined || (was.id === company.id && was.nit === company.nit)) continue;
    const open = await ledger.openFiles(company.alias);
    if (open.length === 0) continue;
    const field = was.id !== company.id ? 'id' : 'nit';
    const changes = [
      ...(was.id === company.id ? [] : [`id ${was.id} → ${company.id}`]),
      ...(was.nit === company.nit ? [] : [`nit ${was.nit} → ${company.nit}`]),
    ].join(', ');
    const names = open.slice(0, 3).map((f) => f.name);
    const more = open.length > names.length ? ` and ${open.length - names.length} more` : '';
    return new EdocError(
      'EDOC_CONFIG_INVALID',
      `companies[${i}].${field}: company ${company.alias} would change (${changes}) while ${open.length} ` +
        `file(s) of it are open (${names.join(', ')}${more}): their remaining documents would be issued under ` +
        'the other company. Reload this change once those files are final (edoc-bridge status lists them)',
      { path: `companies[${i}].${field}`, company: company.alias },
    );
  }
  return undefined;
}
