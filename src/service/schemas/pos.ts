import { z } from 'zod';

/*
 * POS resources. The document content is a request (strict objects); the spec
 * gives numbers for `totales` only, so every other field whose type is not shown
 * accepts a string or a number, and no field is required (not shown).
 * The records are responses (loose objects).
 */

/** Scalar whose type the spec does not show. */
const posScalar = z.union([z.string(), z.number()]);

const posNotificationSchema = z.strictObject({
  tipo: posScalar.optional(),
  valor: z.array(z.string()).optional(),
});

const posPaymentSchema = z.strictObject({
  tipoPago: posScalar.optional(),
  codigoMedio: posScalar.optional(),
  notas: z.array(z.string()).optional(),
});

const posAffectedDocumentSchema = z.strictObject({
  numeroDocumento: posScalar.optional(),
  UUID: z.string().optional(),
  fechaEmision: z.string().optional(),
  codigoCausal: posScalar.optional(),
  observaciones: z.array(z.string()).optional(),
});

export const posDocumentHeaderSchema = z.strictObject({
  prefijo: z.string().optional(),
  numeroDocumento: posScalar.optional(),
  numeroAutorizacion: posScalar.optional(),
  fechaInicioNumeracion: z.string().optional(),
  fechaFinNumeracion: z.string().optional(),
  numeracionDesde: posScalar.optional(),
  numeracionHasta: posScalar.optional(),
  tipoDocumento: posScalar.optional(),
  tipoOperacion: posScalar.optional(),
  subTipoDocumento: posScalar.optional(),
  fechaEmision: z.string().optional(),
  horaEmision: z.string().optional(),
  moneda: z.string().optional(),
  idDocReferencia: posScalar.nullable().optional(),
  numDocReferencia: posScalar.nullable().optional(),
  notificaciones: z.array(posNotificationSchema).optional(),
  formaPago: z.array(posPaymentSchema).optional(),
  beneficiosComprador: z
    .strictObject({
      codigo: posScalar.optional(),
      nombresApellidos: z.string().optional(),
      puntos: posScalar.optional(),
    })
    .optional(),
  cajaVenta: z
    .strictObject({
      placaCaja: z.string().optional(),
      ubicacionCaja: z.string().optional(),
      cajero: z.string().optional(),
      tipoCaja: z.string().optional(),
      codigoVenta: posScalar.optional(),
      subTotal: posScalar.optional(),
    })
    .optional(),
  folio: posScalar.optional(),
  idCia: posScalar.optional(),
  documentosAfectados: z.array(posAffectedDocumentSchema).optional(),
  notas: z.array(z.string()).optional(),
});

export const posAcquirerSchema = z.strictObject({
  identificacion: z.string().optional(),
  tipoIdentificacion: posScalar.optional(),
  razonSocial: z.string().optional(),
  nombreSurcusal: z.string().optional(),
  correo: z.string().optional(),
  telefono: z.string().optional(),
  tipoPersona: posScalar.optional(),
  responsabilidadesRUT: z.array(z.string()).optional(),
  ubicacion: z
    .strictObject({
      pais: z.string().optional(),
      ciudad: z.string().optional(),
      departamento: z.string().optional(),
      direccion: z.string().optional(),
    })
    .optional(),
});

export const posTotalsSchema = z.strictObject({
  valorBruto: z.number().optional(),
  valorCargos: z.number().optional(),
  valorDescuentos: z.number().optional(),
  valorTotalSinImpuestos: z.number().optional(),
  valorTotalConImpuestos: z.number().optional(),
  valorNeto: z.number().optional(),
});

const posLineTaxSchema = z.strictObject({
  id: posScalar.optional(),
  nombre: z.string().optional(),
  esImpuesto: z.boolean().optional(),
  valorImporte: posScalar.optional(),
  valorBase: posScalar.optional(),
  porcentaje: posScalar.optional(),
});

export const posLineSchema = z.strictObject({
  tipoDetalle: posScalar.optional(),
  valorCodigoInterno: posScalar.optional(),
  codigoEstandar: posScalar.optional(),
  valorCodigoEstandar: posScalar.optional(),
  descripcion: z.string().optional(),
  unidades: posScalar.optional(),
  unidadMedida: posScalar.optional(),
  valorUnitarioBruto: posScalar.optional(),
  valorBruto: posScalar.optional(),
  tributos: z.array(posLineTaxSchema).optional(),
  guidMovimiento: z.string().optional(),
});

const posDocumentTaxSchema = z.strictObject({
  id: posScalar.optional(),
  nombre: z.string().optional(),
  esImpuesto: z.boolean().optional(),
  valorImporteTotal: posScalar.optional(),
  detalles: z
    .array(
      z.strictObject({
        valorImporte: posScalar.optional(),
        valorBase: posScalar.optional(),
        porcentaje: posScalar.optional(),
      }),
    )
    .optional(),
});

/** POS document content: the E3 file, or the text of E4 `jsonOriginal`. */
export const posDocumentContentSchema = z.strictObject({
  documento: posDocumentHeaderSchema.optional(),
  adquiriente: posAcquirerSchema.optional(),
  totales: posTotalsSchema.optional(),
  detalles: z.array(posLineSchema).optional(),
  tributos: z.array(posDocumentTaxSchema).optional(),
  versionIntegrador: posScalar.optional(),
  cufeIntegrador: z.string().optional(),
});
export type PosDocumentContent = z.infer<typeof posDocumentContentSchema>;

/** E3 path `tipo` / E4 `tipoFactura`; `nota-ajuste` is an alias of `nota-ajuste-credito`. */
export const posDocumentKindSchema = z.enum([
  'pos',
  'nota-ajuste-credito',
  'nota-ajuste-debito',
  'nota-ajuste',
]);
export type PosDocumentKind = z.infer<typeof posDocumentKindSchema>;

/**
 * E4 body. Which fields are required is not shown, so all are optional; when
 * `jsonOriginal` is sent it must be JSON text holding valid POS document content
 * (its issues are reported under `jsonOriginal.…`).
 */
export const posJsonRequestSchema = z.strictObject({
  companyId: z.number().int().optional(),
  prefijo: z.string().optional(),
  tipoFactura: posDocumentKindSchema.optional(),
  enviarCorreo: z.boolean().optional(),
  numero: z.number().int().optional(),
  jsonOriginal: z
    .string()
    .superRefine((text, ctx) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        ctx.addIssue({
          code: 'custom',
          message: 'must be JSON text holding the POS document content',
        });
        return;
      }
      const result = posDocumentContentSchema.safeParse(parsed);
      if (result.success) return;
      for (const issue of result.error.issues) {
        // Re-rooted as custom issues, so an unknown key is named in its own path.
        const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
        for (const key of keys) {
          const path = key === undefined ? [...issue.path] : [...issue.path, key];
          ctx.addIssue({
            code: 'custom',
            message: key === undefined ? issue.message : 'unknown field',
            path,
          });
        }
      }
    })
    .optional(),
});
export type PosJsonRequest = z.infer<typeof posJsonRequestSchema>;

const stringList = z.preprocess(
  (v) => (v === null || v === undefined ? [] : v),
  z.array(z.string()),
);

/** E3 answer (200), accepted or rejected (`authorityStatus` is the text "true" or "false"). */
export const posRecordSchema = z.looseObject({
  idDocumento: z.number().int(),
  estado: z.number().int(),
  descripcion: z.string(),
  authorityStatus: z.enum(['true', 'false']),
  cude: z.string(),
  prefijo: z.string(),
  numeroDocumento: z.string(),
  qr: z.string().nullable(),
  erroresAuthority: stringList,
  notificaciones: stringList,
  rutaContenedor: z.string().nullable().optional(),
  valorFirma: z.string().nullable().optional(),
});
export type PosRecord = z.output<typeof posRecordSchema>;

/** E3 400 answer; each `details` entry is prefixed by the field name. */
export const posErrorRecordSchema = z.looseObject({
  status: z.number().int(),
  error: z.string(),
  message: z.string(),
  details: stringList,
  correlationId: z.string(),
});
export type PosErrorRecord = z.output<typeof posErrorRecordSchema>;

/** E7 answer. */
export const posCommissioningRecordSchema = z.looseObject({
  companyId: z.number().int(),
  solicitados: z.number().int(),
  aceptados: z.number().int(),
  rechazados: z.number().int(),
  habilitado: z.boolean(),
  mensaje: z.string(),
  detalle: stringList,
});
export type PosCommissioningRecord = z.output<typeof posCommissioningRecordSchema>;
