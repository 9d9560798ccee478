import { describe, expect, it } from 'vitest';
import {
  assignedInNotices,
  identifiersIn,
  issuedNumberIn,
  numberInRecord,
} from '../../src/service/issued.js';

const DEFAULT_NUMBERING =
  'Se usó la numeración por defecto SETP (resolución 18760000001), vigente hasta 2030-01-19; número asignado SETP990000007.';

describe('what the service says it issued', () => {
  it('E1/E5/E6: the number a default-numbering notice names as assigned, split by the prefix it names', () => {
    expect(assignedInNotices([DEFAULT_NUMBERING])).toEqual({ prefix: 'SETP', number: '990000007' });
    expect(assignedInNotices(['otra cosa', DEFAULT_NUMBERING.replace(/SETP/g, 'DS1')])).toEqual({
      prefix: 'DS1',
      number: '990000007',
    });
  });

  it("E2: the consecutive a payroll notice names, split by the request's prefix, else at the trailing digits", () => {
    const notice = 'Se asignó el consecutivo NE15 de la numeración de nómina de la empresa.';
    expect(assignedInNotices([notice], 'NE1')).toEqual({ prefix: 'NE1', number: '5' });
    expect(assignedInNotices([notice])).toEqual({ prefix: 'NE', number: '15' });
    expect(
      assignedInNotices([
        'Se asignó el consecutivo NOM5 de la numeración de nómina de la empresa.',
      ]),
    ).toEqual({ prefix: 'NOM', number: '5' });
  });

  it('no notice naming an assigned number: nothing', () => {
    expect(assignedInNotices([])).toBeUndefined();
    expect(
      assignedInNotices([
        'No se informaron líneas; se anula el documento DS5 con su mismo detalle.',
      ]),
    ).toBeUndefined();
  });

  it('POS record: prefijo and numeroDocumento as data, with cude, qr and idDocumento under their spec names', () => {
    const record = {
      idDocumento: 12,
      estado: 1,
      descripcion: 'ok',
      authorityStatus: 'true',
      cude: 'abc',
      prefijo: 'POS',
      numeroDocumento: '41',
      qr: 'https://q/abc',
      erroresAuthority: [],
      notificaciones: [DEFAULT_NUMBERING],
      rutaContenedor: null,
    };
    expect(numberInRecord(record)).toEqual({ prefix: 'POS', number: '41' });
    expect(issuedNumberIn(record, [DEFAULT_NUMBERING])).toEqual({ prefix: 'POS', number: '41' });
    expect(identifiersIn(record)).toEqual({ idDocumento: 12, cude: 'abc', qr: 'https://q/abc' });
    expect(identifiersIn({ ...record, qr: null })).toMatchObject({ qr: null });
  });

  it("an envelope with a string ResultData carries no identifier; an object ResultData's identifier fields are kept as named", () => {
    expect(
      identifiersIn({
        IsValid: true,
        ResultCode: 200,
        ResultData: 'Procesado Correctamente.',
        Errors: [],
        Warning: [],
      }),
    ).toEqual({});
    expect(
      identifiersIn({
        IsValid: true,
        ResultCode: 200,
        ResultData: { Cufe: 'c1', QrCode: 'q', Other: 'x', UUID: 7 },
      }),
    ).toEqual({ Cufe: 'c1', QrCode: 'q', UUID: 7 });
    expect(identifiersIn('not json')).toEqual({});
  });
});
