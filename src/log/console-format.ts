import { terminalText } from './terminal-text.js';

const HIDDEN = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'err']);
const FIRST = ['company', 'kind', 'file', 'doc', 'code'];
const COLORS: Record<string, string> = {
  fatal: '35',
  error: '31',
  warn: '33',
  info: '32',
  debug: '36',
  trace: '90',
};

function show(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const oneLine = terminalText(text.replace(/\s*\n\s*/g, ' '));
  return oneLine.length > 200 ? `${oneLine.slice(0, 199)}…` : oneLine;
}

/**
 * One readable line per event for a terminal, from one NDJSON log line:
 * `14:03:07.120 INFO  message  company=main kind=invoice file=a.csv`.
 */
export function formatConsoleLine(jsonLine: string, color = false): string {
  let event: Record<string, unknown>;
  try {
    event = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    return jsonLine.endsWith('\n') ? jsonLine : `${jsonLine}\n`;
  }
  const level = String(event.level ?? 'info');
  const time = typeof event.time === 'string' ? event.time.slice(11, 23) : '';
  const label = level.toUpperCase().padEnd(5);
  const tag = color && COLORS[level] ? `\u001b[${COLORS[level]}m${label}\u001b[0m` : label;
  const keys = [
    ...FIRST.filter((k) => k in event),
    ...Object.keys(event).filter((k) => !HIDDEN.has(k) && !FIRST.includes(k)),
  ];
  const fields = keys.filter((k) => event[k] !== undefined).map((k) => `${k}=${show(event[k])}`);
  const err = event.err as { message?: unknown; type?: unknown } | undefined;
  if (err && typeof err === 'object') fields.push(`err=${show(err.message ?? err.type ?? err)}`);
  const msg = event.msg === undefined ? '' : show(event.msg);
  return `${[time, tag, msg].filter(Boolean).join(' ')}${fields.length > 0 ? `  ${fields.join(' ')}` : ''}\n`;
}
