import { describe, expect, it } from 'vitest';
import { checkDigits } from '../../src/validate/check-digit.js';
import { loadRequestFixture } from '../fixtures/requests/index.js';
import { edit, paths, remove } from './edit.js';

describe('NIT check digits in every Identification', () => {
  it("accepts the fixtures' issuer, customer and supplier", () => {
    expect(checkDigits(loadRequestFixture('invoice'))).toEqual([]);
    expect(checkDigits(loadRequestFixture('support-document'))).toEqual([]);
  });

  it('reports a wrong digit with the expected one, wherever the Identification sits', () => {
    const r = loadRequestFixture('invoice');
    edit(r, 'CustomerParty.Identification.CheckDigit', '5');
    edit(r, 'IssuerParty.Identification.CheckDigit', '0');
    const problems = checkDigits(r);
    expect(paths(problems)).toEqual([
      'IssuerParty.Identification.CheckDigit',
      'CustomerParty.Identification.CheckDigit',
    ]);
    expect(problems[1]).toMatchObject({ code: 'EDOC_VALIDATE_CHECK_DIGIT' });
    expect(problems[1].message).toContain('expected 4');
    expect(
      paths(
        checkDigits({
          Parties: [
            {
              Identification: { DocumentType: '31', DocumentNumber: '860002964', CheckDigit: '3' },
            },
          ],
        }),
      ),
    ).toEqual(['Parties[0].Identification.CheckDigit']);
  });

  it('reads NITs written with dots or a -DV suffix', () => {
    expect(
      checkDigits({
        SupplierParty: {
          Identification: { DocumentType: '31', DocumentNumber: '890.900.608-9', CheckDigit: '9' },
        },
      }),
    ).toEqual([]);
  });

  it('checks only NITs (type 31) that carry a CheckDigit', () => {
    const r = loadRequestFixture('invoice');
    edit(r, 'CustomerParty.Identification.DocumentType', '13');
    edit(r, 'CustomerParty.Identification.CheckDigit', '5');
    remove(r, 'IssuerParty.Identification.CheckDigit');
    expect(checkDigits(r)).toEqual([]);
    edit(r, 'IssuerParty.Identification.CheckDigit', '');
    expect(checkDigits(r)).toEqual([]);
  });

  it('reports a NIT that is not digits', () => {
    const problems = checkDigits({
      IssuerParty: {
        Identification: { DocumentType: '31', DocumentNumber: '90012345X', CheckDigit: '8' },
      },
    });
    expect(paths(problems)).toEqual(['IssuerParty.Identification.DocumentNumber']);
  });

  it('the bridge refuses a NIT that is not digits even without its digit; the emulator (no option) does not', () => {
    const r = {
      CustomerParty: { Identification: { DocumentType: '31', DocumentNumber: 'NIT800197268' } },
      SupplierParty: { Identification: { DocumentType: '13', DocumentNumber: 'AB123456' } },
    };
    const problems = checkDigits(r, { nitDigits: true });
    expect(problems.map((p) => [p.code, p.path])).toEqual([
      ['EDOC_VALIDATE_NIT', 'CustomerParty.Identification.DocumentNumber'],
    ]);
    expect(checkDigits(r)).toEqual([]);
    expect(
      checkDigits(
        {
          CustomerParty: { Identification: { DocumentType: '31', DocumentNumber: '800.197.268' } },
        },
        { nitDigits: true },
      ),
    ).toEqual([]);
  });
});
