/**
 * `pos` (PRODUCT: E3, file upload; E4 where `kinds.pos.endpoint` says so). `tipo` comes from the
 * config, else from the file's name, else `pos`. The prefix and number may sit in the content's
 * `documento`, in an E4 body or in the E3 form fields. No guards of the kinds table apply.
 */
import type { ServiceClient } from '../service/client.js';
import type { ServiceCompany, ServiceResponse } from '../service/client-types.js';
import type { PosTipoInput } from '../service/endpoints.js';
import {
  posDocumentContentSchema,
  posJsonRequestSchema,
  type PosDocumentContent,
} from '../service/schemas/pos.js';
import { excerpt } from '../policy/excerpt.js';
import { arr, isObj, obj } from '../validate/access.js';
import { problem, type Problem } from '../validate/problem.js';
import { none, type KindDescriptor, type PosSending, type SendContext } from './descriptor.js';
import { customerId } from './customer.js';
import { firstFilled, makeKey, type DocumentKey, type PosNumbering } from './keys.js';
import { KIND_LABELS } from './names.js';

const POS_TIPOS: readonly PosTipoInput[] = [
  'nota-ajuste-credito',
  'nota-ajuste-debito',
  'nota-ajuste',
  'pos',
];

/** E3's `tipo`: the configured one, else a tipo named in the file name, else `pos`. */
export function posTipoFor(pos: PosSending, fileName: string): PosTipoInput {
  if (pos.tipo) return pos.tipo;
  const lower = fileName.toLowerCase();
  return POS_TIPOS.find((tipo) => lower.includes(tipo)) ?? 'pos';
}

function sendPos(
  client: ServiceClient,
  company: ServiceCompany,
  content: PosDocumentContent,
  ctx: SendContext,
): Promise<ServiceResponse> {
  const doc = content.documento;
  const prefijo = doc?.prefijo === undefined ? '' : String(doc.prefijo);
  const number =
    doc?.numeroDocumento === undefined || doc.numeroDocumento === ''
      ? undefined
      : Number(doc.numeroDocumento);
  const tipo = posTipoFor(ctx.pos, ctx.fileName);
  if (ctx.pos.endpoint === 'E4') {
    return client.issuePosJson(
      company,
      {
        companyId: Number(company.id),
        prefijo,
        tipoFactura: tipo,
        enviarCorreo: false,
        ...(number === undefined ? {} : { numero: number }),
        jsonOriginal: content,
      },
      ctx.options,
    );
  }
  return client.issuePosFile(
    company,
    {
      tipo,
      prefijo,
      file: {
        content: JSON.stringify(content),
        filename: ctx.fileName.endsWith('.json') ? ctx.fileName : 'documento.json',
      },
      ...(number === undefined ? {} : { numeroDocumento: number }),
    },
    ctx.options,
  );
}

/** The POS content itself, or the content an E4 body carries in `jsonOriginal` (as text or as an object). */
function posContent(r: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (r === undefined) return undefined;
  if (isObj(r.documento)) return r;
  if (typeof r.jsonOriginal === 'string') {
    try {
      return obj(JSON.parse(r.jsonOriginal));
    } catch {
      return undefined;
    }
  }
  return obj(r.jsonOriginal);
}

/**
 * The POS content's `documento` first, then an E4 body (`prefijo`, `numero`,
 * `jsonOriginal`), then the E3 form fields, each part falling back separately.
 */
function posKey(request: unknown, form?: PosNumbering): DocumentKey | undefined {
  const r = obj(request);
  const doc = obj(posContent(r)?.documento);
  const prefix = firstFilled(doc?.prefijo, r?.prefijo, form?.prefijo);
  const number = firstFilled(
    doc?.numeroDocumento,
    r?.numero,
    r?.numeroDocumento,
    form?.numeroDocumento,
  );
  return makeKey(prefix, number);
}

/** The document (number or UUID) a POS content's `documentosAfectados` names: set for an adjustment note. */
export function posNoteOf(request: unknown): string | undefined {
  const affected = arr(obj(posContent(obj(request))?.documento)?.documentosAfectados) ?? [];
  return affected
    .map((entry) => firstFilled(obj(entry)?.numeroDocumento, obj(entry)?.UUID))
    .find((n) => n !== undefined);
}

/**
 * A POS content whose `documentosAfectados` names a document (its number or UUID) is an adjustment note
 * of that document; sent with E3's `tipo` `pos` the service issues it as one more sale. The tipo comes
 * from `kinds.pos.tipo` or the file's name, so such a content under `pos` is refused, never sent.
 */
export function posTipoProblems(request: unknown, tipo: string): Problem[] {
  if (tipo !== 'pos') return [];
  const named = posNoteOf(request);
  if (named === undefined) return [];
  return [
    problem(
      'EDOC_VALIDATE_KIND',
      'documento.documentosAfectados',
      `documentosAfectados names ${excerpt(named)}: this is an adjustment note of that document, but the file is sent with tipo pos, a sale; it is not sent: name the file …nota-ajuste-credito… (or …nota-ajuste-debito…), or set kinds.pos.tipo`,
    ),
  ];
}

export const POS: KindDescriptor = {
  name: 'pos',
  label: KIND_LABELS['pos'],
  endpoint: 'E3',
  numbering: 'pos',
  send: (client, company, request, ctx) =>
    sendPos(client, company, request as PosDocumentContent, ctx),
  // An E4 body carries the content as text in jsonOriginal; otherwise it is the content itself.
  schema: (request) =>
    isObj(request) && 'jsonOriginal' in request ? posJsonRequestSchema : posDocumentContentSchema,
  key: posKey,
  numberPath: 'documento.numeroDocumento',
  prefix: (request) => {
    const r = obj(request);
    return firstFilled(obj(posContent(r)?.documento)?.prefijo, r?.prefijo);
  },
  customer: (request) =>
    customerId(obj((posContent(obj(request)) ?? obj(request))?.adquiriente)?.identificacion),
  guards: none,
  totals: none,
  rules: none,
};
