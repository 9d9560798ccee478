/**
 * The emulator's whole mutable world: companies with their keys, NITs, ranges
 * (and next consecutive), commissioning status, the documents each company
 * issued and the documents it received. Plain data, so it serialises to the
 * `--state` file as it is; every mutation goes through `changed()` so the file
 * follows.
 */
import { kindOf, type DocumentKind, type NumberingFamily } from '../kinds/index.js';
import type { Seed, SeedRange, RangeDocumentType } from './seed.js';

export type DocKind =
  | 'invoice'
  | 'credit-note'
  | 'debit-note'
  | 'payroll'
  | 'payroll-adjustment'
  | 'payroll-elimination'
  | 'support-document'
  | 'support-adjustment'
  | 'pos'
  | 'pos-credit-note'
  | 'pos-debit-note';

/** Numbers are unique per company + family + prefix (the authority's rule 90); the bridge's kind descriptors say which. */
export type DocFamily = NumberingFamily;

/** The bridge's kind (src/kinds/) each of the emulator's finer kinds is issued as. */
const BRIDGE_KIND: Readonly<Record<DocKind, DocumentKind>> = {
  invoice: 'invoice',
  'credit-note': 'credit-note',
  'debit-note': 'debit-note',
  payroll: 'payroll',
  'payroll-adjustment': 'payroll',
  'payroll-elimination': 'payroll',
  'support-document': 'support-document',
  'support-adjustment': 'support-adjustment',
  pos: 'pos',
  'pos-credit-note': 'pos',
  'pos-debit-note': 'pos',
};

export function familyOf(kind: DocKind): DocFamily {
  return kindOf(BRIDGE_KIND[kind]).numbering;
}

export interface IssuedDocument {
  id: number;
  company: number;
  kind: DocKind;
  family: DocFamily;
  prefix: string;
  number: string;
  /** CUFE / CUDE / CUNE: SHA-384 hex. */
  cufe: string;
  accepted: boolean;
  /** Authority rejection reasons, `Regla: CODE, Rechazo: text`. */
  reasons: string[];
  time: string;
  request: unknown;
  /** True when the representation would have been emailed (E1 accepted; E3/E4 with enviarCorreo). */
  emailed: boolean;
}

export type RangeState = SeedRange;

export type InvoiceCommissioning = 'enabled' | 'succeed' | 'fail' | 'error';
export type PosCommissioning = 'succeed' | 'fail' | 'partial' | 'error';

export interface CompanyState {
  id: number;
  nit: string;
  checkDigit: string;
  name: string;
  apiKey: string;
  userIds: number[];
  payrollPrefix: string;
  payrollNext: number;
  commissioning: {
    invoice: InvoiceCommissioning;
    payroll: InvoiceCommissioning;
    pos: PosCommissioning;
  };
  enabled: { invoice: boolean; payroll: boolean; pos: boolean };
  ranges: RangeState[];
  received: Record<string, unknown>[];
  /** Supplier parties of accepted support documents, by identification number (rule 1). */
  providers: Record<string, Record<string, unknown>>;
}

export interface StateData {
  version: 1;
  companies: CompanyState[];
  documents: IssuedDocument[];
  nextDocumentId: number;
}

export function stateFromSeed(seed: Seed): StateData {
  return {
    version: 1,
    nextDocumentId: 1,
    documents: [],
    companies: seed.companies.map((c) => ({
      id: c.id,
      nit: c.nit,
      checkDigit: c.checkDigit,
      name: c.name,
      apiKey: c.apiKey,
      userIds: [...c.userIds],
      payrollPrefix: c.payrollPrefix,
      payrollNext: 1,
      commissioning: { ...c.commissioning },
      enabled: {
        invoice: c.commissioning.invoice === 'enabled',
        payroll: c.commissioning.payroll === 'enabled',
        pos: false,
      },
      ranges: c.ranges.map((r) => ({ ...r })),
      received: c.receivedDocuments.map((d) => ({ ...d })),
      providers: {},
    })),
  };
}

/** yyyy-MM-dd of the date part of a yyyy-MM-ddTHH:mm:ss (or a bare date). */
function datePart(value: string): string {
  return value.slice(0, 10);
}

function acceptedKey(d: Pick<IssuedDocument, 'company' | 'family' | 'prefix' | 'number'>): string {
  return `${d.company}\u0000${d.family}\u0000${d.prefix}\u0000${d.number}`;
}

export class EmulatorState {
  readonly data: StateData;
  private readonly todayFn: () => string;
  private readonly onChange: () => void;
  /** Accepted documents by company + family + prefix + number: rule 90 must not scan every document. */
  private readonly accepted = new Map<string, IssuedDocument>();

  constructor(data: StateData, today: () => string, onChange: () => void = () => {}) {
    this.data = data;
    this.todayFn = today;
    this.onChange = onChange;
    for (const doc of data.documents) if (doc.accepted) this.accepted.set(acceptedKey(doc), doc);
  }

  /** "Today" in Colombia, or the seed's pinned date. */
  today(): string {
    return this.todayFn();
  }

  /** Call after every mutation: the persistence layer writes the state file. */
  changed(): void {
    this.onChange();
  }

  company(id: number | undefined): CompanyState | undefined {
    if (id === undefined) return undefined;
    return this.data.companies.find((c) => c.id === id);
  }

  /** Active ranges whose validity includes today, of the given types (and prefix when given). */
  currentRanges(
    company: CompanyState,
    types: readonly RangeDocumentType[],
    prefix?: string,
  ): RangeState[] {
    const today = this.today();
    return company.ranges.filter(
      (r) =>
        r.Active &&
        types.includes(r.DocumentType) &&
        (prefix === undefined || r.Prefix === prefix) &&
        datePart(r.ValidFrom) <= today &&
        today <= datePart(r.ValidTo),
    );
  }

  /** Active ranges of a company, as E10 lists them (validity dates not checked: a range may be listed while expired). */
  activeRanges(company: CompanyState): RangeState[] {
    return company.ranges.filter((r) => r.Active);
  }

  findAccepted(
    company: number,
    family: DocFamily,
    prefix: string,
    number: string,
  ): IssuedDocument | undefined {
    return this.accepted.get(acceptedKey({ company, family, prefix, number }));
  }

  /** Documents of one family for a company, newest last. */
  documentsOf(company: number, family: DocFamily): IssuedDocument[] {
    return this.data.documents.filter((d) => d.company === company && d.family === family);
  }

  record(doc: Omit<IssuedDocument, 'id' | 'family'>): IssuedDocument {
    const full: IssuedDocument = {
      ...doc,
      id: this.data.nextDocumentId,
      family: familyOf(doc.kind),
    };
    this.data.nextDocumentId += 1;
    this.data.documents.push(full);
    if (full.accepted) this.accepted.set(acceptedKey(full), full);
    this.changed();
    return full;
  }
}
