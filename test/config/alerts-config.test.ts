/**
 * The `alerts` section: defaults when absent, durations and thresholds read, unknown keys and a bad
 * webhook refused saying where; the webhook URL treated as a secret (origin only in the effective
 * configuration, its token scrubbed from every line).
 */
import { describe, expect, test } from 'vitest';
import { loadConfig, redactConfig } from '../../src/config/index.js';
import { bestEffortSecrets, configSecrets, secretScrubberOf } from '../../src/config/secrets.js';
import { MINIMAL, writeConfig } from './helpers.js';

describe('alerts configuration', () => {
  test('absent: logged only, ranges read hourly, sensible thresholds', async () => {
    const { file, dir } = await writeConfig(MINIMAL);
    const config = await loadConfig(file, {}, { cwd: dir });
    expect(config.alerts).toEqual({
      serviceDownAfter: 60_000,
      rejections: { count: 20, within: 600_000 },
      ranges: {
        every: 3_600_000,
        numbersLeftBelow: 500,
        daysLeftBelow: 15,
        refuseOutOfRange: true,
      },
      dayEndLead: 1_800_000,
      queue: 200,
      timeoutMs: 10_000,
      baseDelayMs: 1_000,
      maxDelayMs: 300_000,
    });
  });

  test('durations and thresholds are read; ${VAR} works for the webhook', async () => {
    const { file, dir } = await writeConfig(`${MINIMAL}
alerts:
  webhook: \${EDOC_ALERT_HOOK}
  serviceDownAfter: 2m
  rejections: { count: 5, within: 1h }
  ranges: { every: 30m, numbersLeftBelow: 1000, daysLeftBelow: 30 }
  dayEndLead: 45m
`);
    const config = await loadConfig(
      file,
      { EDOC_ALERT_HOOK: 'https://hooks.example.com/services/T000/B000/abcdefghijklmnopqrstuvwx' },
      { cwd: dir },
    );
    expect(config.alerts).toMatchObject({
      serviceDownAfter: 120_000,
      rejections: { count: 5, within: 3_600_000 },
      ranges: { every: 1_800_000, numbersLeftBelow: 1000, daysLeftBelow: 30 },
      dayEndLead: 2_700_000,
    });
    // the token in the path never shows: origin only, and scrubbed from any text
    expect(redactConfig(config)).toMatchObject({
      alerts: { webhook: 'https://hooks.example.com/…' },
    });
    expect(JSON.stringify(redactConfig(config))).not.toContain('abcdefghijklmnopqrstuvwx');
    expect(configSecrets(config)).toContain('abcdefghijklmnopqrstuvwx');
    expect(
      secretScrubberOf(config).scrub(
        'posting to https://hooks.example.com/services/T000/B000/abcdefghijklmnopqrstuvwx failed',
      ),
    ).not.toContain('abcdefghijklmnopqrstuvwx');
    // ordinary words of the URL are not scrubbed from every line
    expect(secretScrubberOf(config).scrub('services hooks alerts')).toBe('services hooks alerts');
  });

  test('a token in the query or the userinfo is a secret too, also for commands that load no secrets', async () => {
    const { file, dir } = await writeConfig(`${MINIMAL}
alerts:
  webhook: "https://bot:pa55word-x@alerts.example.com/hook?channel=ops&token=t0k3n-value"
`);
    const config = await loadConfig(file, {}, { cwd: dir });
    const secrets = configSecrets(config);
    expect(secrets).toEqual(expect.arrayContaining(['pa55word-x', 't0k3n-value']));
    expect(secrets).not.toContain('ops');
    expect(bestEffortSecrets(file, {}, dir)).toEqual(
      expect.arrayContaining(['pa55word-x', 't0k3n-value']),
    );
    expect(JSON.stringify(redactConfig(config))).not.toContain('pa55word');
  });

  test('a webhook that is not an http(s) URL, a duration too short and an unknown key are refused, naming the key', async () => {
    const { file, dir } = await writeConfig(`${MINIMAL}
alerts:
  webhook: "ftp://example.com/x"
  serviceDownAfter: 10ms
  ranges: { evry: 1h }
`);
    await expect(loadConfig(file, {}, { cwd: dir })).rejects.toThrow(
      /alerts\.webhook: must use https \(or http\), not ftp:.*alerts\.serviceDownAfter: must be a duration.*alerts\.ranges\.evry: unknown key "evry" \(did you mean "every"\?\)/s,
    );
  });
});
