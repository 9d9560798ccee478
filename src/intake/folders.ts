/**
 * PRODUCT "Folders": one company → inbox/<kind>/ and outbox/<kind>/; several
 * companies → inbox/<company>/<kind>/ and outbox/<company>/<kind>/.
 */
import { unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { DOCUMENT_KINDS, type DocumentKind } from '../kinds/index.js';
import type { AppLogger } from '../log/logger.js';

type FolderConfig = Pick<Config, 'companies' | 'paths' | 'kinds'>;

function perCompany(config: FolderConfig, root: string, company: string): string {
  return config.companies.length > 1 ? path.join(root, company) : root;
}

export function inboxDir(config: FolderConfig, company: string, kind: string): string {
  return path.join(perCompany(config, config.paths.inbox, company), kind);
}

export function outboxDir(config: FolderConfig, company: string, kind: string): string {
  return path.join(perCompany(config, config.paths.outbox, company), kind);
}

/** The file lies directly in one of the watched inbox folders (so its original is archived once final). */
export function inInboxFolder(config: FolderConfig, file: string): boolean {
  // inbox/<kind>/ or inbox/<company>/<kind>/: only the company its place names is compared (not every
  // company × kind: the report scheduler asks this for every file, with hundreds of companies)
  const dir = path.dirname(path.resolve(file));
  const kind = path.basename(dir);
  if (
    !(DOCUMENT_KINDS as readonly string[]).includes(kind) ||
    !config.kinds[kind as DocumentKind].enabled
  )
    return false;
  const alias =
    config.companies.length > 1 ? path.basename(path.dirname(dir)) : config.companies[0]?.alias;
  const company = config.companies.find((c) => c.alias === alias);
  return company !== undefined && path.resolve(inboxDir(config, company.alias, kind)) === dir;
}

/** Every watched inbox folder: enabled kinds × companies. */
export function inboxFolders(
  config: FolderConfig,
): { dir: string; kind: DocumentKind; company: string }[] {
  const out: { dir: string; kind: DocumentKind; company: string }[] = [];
  for (const company of config.companies) {
    for (const kind of DOCUMENT_KINDS) {
      if (!config.kinds[kind].enabled) continue;
      out.push({ dir: inboxDir(config, company.alias, kind), kind, company: company.alias });
    }
  }
  return out;
}

/** Deletes a done marker whose data file is in the ledger for good (a missing one is fine). */
export async function removeMarker(marker: string, logger: AppLogger): Promise<void> {
  try {
    await unlink(marker);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      logger.warn({ err, file: marker }, 'could not delete a done marker');
  }
}
