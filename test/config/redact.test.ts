import { describe, expect, test } from 'vitest';
import { loadConfig, parseDuration, redactConfig } from '../../src/config/index.js';
import { writeConfig } from './helpers.js';

describe('redactConfig', () => {
  test('API keys become "[redacted]"; everything else, the key file path included, is kept', async () => {
    const { file, dir } = await writeConfig(`
companies:
  - { alias: main, id: 1001, nit: "900123456", apiKey: first-secret-1111 }
  - { alias: other, id: 1002, nit: "800123456", apiKey: second-secret-2222 }
`);
    const config = await loadConfig(file, {}, { cwd: dir });
    const redacted = redactConfig(config);
    const text = JSON.stringify(redacted);
    expect(text).not.toContain('first-secret-1111');
    expect(text).not.toContain('second-secret-2222');
    expect(redacted).toMatchObject({
      companies: [
        { alias: 'main', apiKey: '[redacted]' },
        { alias: 'other', apiKey: '[redacted]', id: 1002 },
      ],
    });
    expect(config.companies[0].apiKey).toBe('first-secret-1111');
  });
});

describe('parseDuration', () => {
  test('reads ms, s, m, h, d, compounds and bare milliseconds; refuses anything else', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('15m')).toBe(900_000);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration('1d')).toBe(86_400_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('1.5s')).toBe(1_500);
    expect(parseDuration('2500')).toBe(2_500);
    expect(parseDuration(60_000)).toBe(60_000);
    expect(parseDuration('15 minutes')).toBeUndefined();
    expect(parseDuration('m')).toBeUndefined();
    expect(parseDuration('')).toBeUndefined();
    expect(parseDuration(-1)).toBeUndefined();
  });
});
