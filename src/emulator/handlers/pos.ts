/**
 * E3 (file upload), E4 (JSON body) and E7 (POS commissioning). POS answers
 * are records, not envelopes: a document reaching the authority is HTTP 200
 * with `authorityStatus` "true"/"false"; anything that does not allow issuing
 * is the 400 error record whose details are prefixed by the field name.
 */
import { randomUUID } from 'node:crypto';
import { parseAmountLenient } from '../../policy/amount.js';
import { canonicalPosTipo, type PosTipo } from '../../service/endpoints.js';
import {
  posDocumentContentSchema,
  posJsonRequestSchema,
  type PosDocumentContent,
} from '../../service/schemas/pos.js';
import { keyMatches } from '../auth.js';
import { regla } from '../authority.js';
import {
  header,
  issueMessages,
  parseIntStrict,
  parseJson,
  type EmulatorRequest,
  type Reply,
} from '../http.js';
import { issueDocument } from '../issue.js';
import { assignNumber } from '../numbering.js';
import type { CompanyState, DocKind, EmulatorState } from '../state.js';

export function errorRecord(
  status: number,
  error: string,
  message: string,
  details: string[] = [],
): Reply {
  return { status, body: { status, error, message, details, correlationId: randomUUID() } };
}

function badRequest(details: string[]): Reply {
  return errorRecord(400, 'Bad Request', 'Validation failed', details);
}

function kindOf(tipo: PosTipo): DocKind {
  if (tipo === 'nota-ajuste-credito') return 'pos-credit-note';
  if (tipo === 'nota-ajuste-debito') return 'pos-debit-note';
  return 'pos';
}

/** Emulator's own POS totals rule: Σ detalles.valorBruto = totales.valorBruto, to the cent. */
function posTotals(content: PosDocumentContent): string[] {
  const total = content.totales?.valorBruto;
  const lines = content.detalles ?? [];
  if (total === undefined || lines.length === 0) return [];
  let sum = 0;
  for (const line of lines) {
    if (line.valorBruto === undefined) return [];
    const cents = parseAmountLenient(line.valorBruto as string | number);
    if (cents === undefined) return [];
    sum += cents;
  }
  const expected = parseAmountLenient(total);
  if (expected === undefined || expected === sum) return [];
  return [regla('FAU04', 'El valor bruto total no coincide con la suma de los detalles.')];
}

interface PosIssue {
  company: CompanyState;
  tipo: PosTipo;
  prefijo: string;
  numero: number | undefined;
  content: PosDocumentContent;
  enviarCorreo: boolean;
}

function issuePos(state: EmulatorState, input: PosIssue): Reply {
  const kind = kindOf(input.tipo);
  const notices: string[] = [];
  let number: string;
  if (input.numero === undefined) {
    const assigned = assignNumber(state, input.company, kind, input.prefijo);
    if (assigned === undefined) {
      return badRequest([
        `prefijo: no hay un rango de numeración POS vigente con prefijo ${input.prefijo}`,
      ]);
    }
    number = assigned.number;
    notices.push(assigned.warning);
  } else {
    number = String(input.numero);
  }
  const affected = input.content.documento?.documentosAfectados ?? [];
  const doc = issueDocument(
    state,
    {
      company: input.company,
      kind,
      prefix: input.prefijo,
      number,
      missingReference: kind !== 'pos' && affected.length === 0,
      extra: posTotals(input.content),
    },
    {
      tipo: input.tipo,
      prefijo: input.prefijo,
      numeroDocumento: number,
      enviarCorreo: input.enviarCorreo,
      content: input.content,
    },
    input.enviarCorreo,
  );
  return {
    status: 200,
    body: {
      idDocumento: doc.id,
      estado: doc.accepted ? 1 : 2,
      descripcion: doc.accepted
        ? 'Documento aceptado por la autoridad.'
        : 'Documento rechazado por la autoridad.',
      authorityStatus: doc.accepted ? 'true' : 'false',
      cude: doc.cufe,
      prefijo: doc.prefix,
      numeroDocumento: doc.number,
      qr: doc.accepted
        ? `https://catalogo-vpfe.emulator.local/document/searchqr?documentkey=${doc.cufe}`
        : null,
      erroresAuthority: doc.reasons,
      notificaciones: notices,
      rutaContenedor: null,
      valorFirma: null,
    },
  };
}

function parseContent(
  text: string,
  field: string,
): { ok: true; content: PosDocumentContent } | { ok: false; details: string[] } {
  const json = parseJson(text);
  if (!json.ok) return { ok: false, details: [`${field}: no contiene JSON válido`] };
  const parsed = posDocumentContentSchema.safeParse(json.value);
  if (!parsed.success)
    return { ok: false, details: issueMessages(parsed.error.issues).map((m) => `${field}.${m}`) };
  return { ok: true, content: parsed.data };
}

function formText(form: FormData, name: string): string | undefined {
  const value = form.get(name);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

export async function handlePosFile(state: EmulatorState, req: EmulatorRequest): Promise<Reply> {
  const tipo = req.params.tipo;
  if (tipo === undefined) {
    return badRequest([
      `tipo: '${req.params.tipoAsSent ?? ''}' no es uno de pos, nota-ajuste-credito, nota-ajuste-debito, nota-ajuste`,
    ]);
  }
  const form = req.form;
  if (form === undefined)
    return badRequest([`file: ${req.formError ?? 'se esperaba multipart/form-data'}`]);
  const details: string[] = [];
  const file = form.get('file');
  if (file === null || typeof file === 'string') details.push('file: es obligatorio');
  const companyText = formText(form, 'companyId');
  const companyId = parseIntStrict(companyText);
  if (companyText === undefined) details.push('companyId: es obligatorio');
  else if (companyId === undefined)
    details.push(`companyId: debe ser un entero ('${companyText}')`);
  const company = state.company(companyId);
  if (companyId !== undefined && company === undefined)
    details.push(`companyId: la empresa ${companyId} no existe`);
  const prefijo = formText(form, 'prefijo');
  if (prefijo === undefined) details.push('prefijo: es obligatorio');
  const numeroText = formText(form, 'numeroDocumento');
  const numero = parseIntStrict(numeroText);
  if (numeroText !== undefined && numero === undefined)
    details.push(`numeroDocumento: debe ser un entero ('${numeroText}')`);
  const correo = formText(form, 'enviarCorreo');
  if (correo !== undefined && correo !== 'true' && correo !== 'false')
    details.push(`enviarCorreo: debe ser true o false ('${correo}')`);
  const userText = header(req.headers, 'x-user-id');
  if (userText !== undefined && parseIntStrict(userText) === undefined)
    details.push(`x-user-id: debe ser un entero ('${userText}')`);
  let content: PosDocumentContent | undefined;
  if (file !== null && typeof file !== 'string') {
    const parsed = parseContent(await file.text(), 'file');
    if (parsed.ok) content = parsed.content;
    else details.push(...parsed.details);
  }
  if (details.length > 0 || company === undefined || prefijo === undefined || content === undefined)
    return badRequest(details);
  return issuePos(state, {
    company,
    tipo,
    prefijo,
    numero,
    content,
    enviarCorreo: correo === 'true',
  });
}

export function handlePosJson(state: EmulatorState, req: EmulatorRequest): Reply {
  const key = header(req.headers, 'x-api-key');
  if (key === undefined)
    return errorRecord(401, 'Unauthorized', 'El encabezado x-api-key es obligatorio.');
  const json = parseJson(req.text);
  if (!json.ok) return badRequest([`body: ${json.message}`]);
  const parsed = posJsonRequestSchema.safeParse(json.value);
  if (!parsed.success) return badRequest(issueMessages(parsed.error.issues));
  const body = parsed.data;
  const details: string[] = [];
  if (body.companyId === undefined) details.push('companyId: es obligatorio');
  if (body.prefijo === undefined || body.prefijo.trim() === '')
    details.push('prefijo: es obligatorio');
  if (body.jsonOriginal === undefined) details.push('jsonOriginal: es obligatorio');
  if (details.length > 0) return badRequest(details);
  const company = state.company(body.companyId);
  if (!keyMatches(company, key)) {
    return errorRecord(
      401,
      'Unauthorized',
      `La llave de acceso no corresponde a la empresa ${body.companyId}.`,
    );
  }
  const content = parseContent(body.jsonOriginal as string, 'jsonOriginal');
  if (!content.ok) return badRequest(content.details);
  const tipo = canonicalPosTipo(body.tipoFactura ?? 'pos') ?? 'pos';
  return issuePos(state, {
    company: company as CompanyState,
    tipo,
    prefijo: (body.prefijo as string).trim(),
    numero: body.numero,
    content: content.content,
    enviarCorreo: body.enviarCorreo === true,
  });
}

/** E7. The outcome of "partial" is not shown: the emulator accepts ⌊cantidad/2⌋ and does not enable (documented). */
export function handlePosCommissioning(state: EmulatorState, req: EmulatorRequest): Reply {
  const companyText = req.url.searchParams.get('companyId') ?? undefined;
  const companyId = parseIntStrict(companyText);
  if (companyText === undefined || companyText === '')
    return badRequest(['companyId: es obligatorio']);
  if (companyId === undefined)
    return badRequest([`companyId: debe ser un entero ('${companyText}')`]);
  const cantidadText = req.url.searchParams.get('cantidad');
  const cantidad = cantidadText === null || cantidadText === '' ? 1 : parseIntStrict(cantidadText);
  if (cantidad === undefined || cantidad < 1)
    return badRequest([`cantidad: debe ser un entero positivo ('${cantidadText}')`]);
  const company = state.company(companyId);
  if (company === undefined)
    return errorRecord(404, 'Not Found', `La empresa ${companyId} no existe.`);
  const setting = company.commissioning.pos;
  if (setting === 'error')
    return errorRecord(500, 'Internal Server Error', 'Error procesando la habilitación POS.');
  const aceptados =
    setting === 'succeed' ? cantidad : setting === 'partial' ? Math.floor(cantidad / 2) : 0;
  const habilitado = aceptados === cantidad;
  const detalle: string[] = [];
  for (let i = 1; i <= cantidad; i += 1) {
    detalle.push(
      i <= aceptados
        ? `POS${i}: ACEPTADO`
        : `POS${i}: RECHAZADO ${regla('FAD06', 'Documento de prueba rechazado por la autoridad.')}`,
    );
  }
  if (habilitado && !company.enabled.pos) {
    company.enabled.pos = true;
    state.changed();
  }
  const testId = req.url.searchParams.get('testId');
  return {
    status: 200,
    body: {
      companyId,
      solicitados: cantidad,
      aceptados,
      rechazados: cantidad - aceptados,
      habilitado,
      mensaje: habilitado
        ? `Empresa habilitada: se aceptaron los ${cantidad} documentos de prueba${testId === null ? '' : ` del set ${testId}`}.`
        : aceptados === 0
          ? 'Ningún documento de prueba fue aceptado; la empresa no quedó habilitada.'
          : `Se aceptaron ${aceptados} de ${cantidad} documentos de prueba; la empresa no quedó habilitada.`,
      detalle,
    },
  };
}
