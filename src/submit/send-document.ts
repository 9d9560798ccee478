/**
 * One document to the operation of its kind (PRODUCT kinds table). The request
 * was validated before it was queued; this only picks the endpoint and its inputs.
 */
import type { PosKindConfig } from '../config/schema.js';
import type { PosTipoInput } from '../service/endpoints.js';
import type { ServiceClient } from '../service/client.js';
import type { CallOptions, ServiceCompany, ServiceResponse } from '../service/client-types.js';
import type {
  AdjustmentNoteRequest, InvoiceRequest, PayrollRequest, PosDocumentContent, SupportDocumentRequest,
} from '../service/schemas/index.js';
import type { DocumentKind } from '../validate/kinds.js';

const POS_TIPOS: readonly PosTipoInput[] = ['nota-ajuste-credito', 'nota-ajuste-debito', 'nota-ajuste', 'pos'];

/** E3's `tipo`: the configured one, else a tipo named in the file name, else `pos`. */
export function posTipoFor(pos: PosKindConfig, fileName: string): PosTipoInput {
  if (pos.tipo) return pos.tipo;
  const lower = fileName.toLowerCase();
  return POS_TIPOS.find((tipo) => lower.includes(tipo)) ?? 'pos';
}

export interface SendContext {
  pos: PosKindConfig;
  /** The input file's name (POS `tipo` may come from it). */
  fileName: string;
  options?: CallOptions;
}

export function sendDocument(client: ServiceClient, company: ServiceCompany, kind: DocumentKind, request: unknown,
  ctx: SendContext): Promise<ServiceResponse> {
  const options = ctx.options;
  switch (kind) {
    case 'invoice':
    case 'credit-note':
    case 'debit-note':
      return client.issueInvoice(company, request as InvoiceRequest, options);
    case 'payroll':
      return client.issuePayroll(company, request as PayrollRequest, options);
    case 'support-document':
      return client.issueSupportDocument(company, request as SupportDocumentRequest, options);
    case 'support-adjustment':
      return client.issueAdjustmentNote(company, request as AdjustmentNoteRequest, options);
    case 'pos':
      return sendPos(client, company, request as PosDocumentContent, ctx);
  }
}

function sendPos(client: ServiceClient, company: ServiceCompany, content: PosDocumentContent,
  ctx: SendContext): Promise<ServiceResponse> {
  const doc = content.documento;
  const prefijo = doc?.prefijo === undefined ? '' : String(doc.prefijo);
  const number = doc?.numeroDocumento === undefined || doc.numeroDocumento === '' ? undefined : Number(doc.numeroDocumento);
  const tipo = posTipoFor(ctx.pos, ctx.fileName);
  if (ctx.pos.endpoint === 'E4') {
    return client.issuePosJson(company, {
      companyId: Number(company.id), prefijo, tipoFactura: tipo, enviarCorreo: false,
      ...(number === undefined ? {} : { numero: number }), jsonOriginal: content,
    }, ctx.options);
  }
  return client.issuePosFile(company, {
    tipo, prefijo, file: { content: JSON.stringify(content), filename: ctx.fileName.endsWith('.json') ? ctx.fileName : 'documento.json' },
    ...(number === undefined ? {} : { numeroDocumento: number }),
  }, ctx.options);
}
