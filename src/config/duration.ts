const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const WHOLE = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;

/**
 * Parses a human duration such as `30s`, `15m`, `1h`, `1h30m` or `500ms` into
 * milliseconds. A bare number (or a string of digits, as `${VAR}` substitution
 * yields) is taken as milliseconds. Returns undefined when the text is not a duration.
 */
export function parseDuration(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  const text = value.trim().toLowerCase().replace(/\s+/g, '');
  if (/^\d+$/.test(text)) return Number(text);
  if (!WHOLE.test(text)) return undefined;
  let total = 0;
  for (const match of text.matchAll(PART)) total += Number(match[1]) * UNIT_MS[match[2]];
  return Math.round(total);
}
