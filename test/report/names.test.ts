import { describe, expect, it } from 'vitest';
import { outputNames, outputStem, sanitizeName } from '../../src/policy/outbox-names.js';

describe('output names derived from input names', () => {
  it('drops separators, parent references and control characters, keeps unicode letters', () => {
    expect(outputStem('ventas año 2026.csv')).toBe('ventas año 2026');
    expect(outputStem('../../etc/passwd.json')).toBe('passwd');
    expect(sanitizeName('a/b\\c..d\u0000e\u001bf.json')).toBe('a_b_c_def.json');
    expect(sanitizeName('..')).toBe('_');
    expect(sanitizeName('.hidden')).toBe('hidden');
    expect(sanitizeName('CON')).toBe('_CON');
    expect(sanitizeName('   ')).toBe('file');
    expect(sanitizeName('fac<tu>ra:1?.json')).toBe('fac_tu_ra_1_.json');
  });

  it('shortens over-long names with a hash suffix that keeps them distinct', () => {
    const a = outputStem(`${'ñ'.repeat(300)}a.csv`);
    const b = outputStem(`${'ñ'.repeat(300)}b.csv`);
    expect(Buffer.byteLength(a)).toBeLessThanOrEqual(180);
    expect(a).toMatch(/^ñ+~[0-9a-f]{8}$/);
    expect(a).not.toBe(b);
  });

  it('names the three outbox files after the stem and the input extension', () => {
    expect(outputNames('ventas', 'ventas.CSV')).toEqual({
      result: 'ventas.result.json',
      errors: 'ventas.errors.csv',
      retry: 'ventas.retry.csv',
    });
    expect(outputNames('x', 'x.jsonl').retry).toBe('x.retry.jsonl');
  });
});
