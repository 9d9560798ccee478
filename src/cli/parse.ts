import { parseArgs } from 'node:util';
import { DEFAULT_CONFIG_FILE } from '../config/load.js';
import { closest } from '../config/suggest.js';
import type { Command, OptionSpecs, OptionValue, ParsedArgs } from './command.js';
import { usageError } from './command.js';

export const GLOBAL_OPTIONS: OptionSpecs = {
  config: {
    type: 'string',
    valueName: 'FILE',
    default: DEFAULT_CONFIG_FILE,
    description: 'configuration file',
  },
  verbose: { type: 'boolean', description: 'print stack traces on errors' },
  help: { type: 'boolean', short: 'h', description: 'show this help' },
};

export function allOptions(command: Command): OptionSpecs {
  return { ...command.options, ...GLOBAL_OPTIONS };
}

/** node:util's messages are long and name `--foo` with quotes; ours are one line with a way out. */
function explain(err: unknown, command: Command, argv: readonly string[]): string {
  const message = err instanceof Error ? err.message : String(err);
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown) {
    const name = unknown[1];
    const suggestion = name.startsWith('--')
      ? closest(name.slice(2), Object.keys(allOptions(command)))
      : undefined;
    return `unknown option ${name}${suggestion ? ` (did you mean --${suggestion}?)` : ''}`;
  }
  const missing = /Option '(?:-\w, )?(--[\w-]+)[^']*' argument missing/.exec(message);
  if (missing) return `option ${missing[1]} needs a value`;
  const ambiguous = /Option '(-\w|--[\w-]+)(?:, (--[\w-]+))?' argument is ambiguous/.exec(message);
  if (ambiguous) {
    // `--from -5`: node will not guess whether -5 is the value or a forgotten value followed by an option
    const given = ambiguous[1];
    const short = given.startsWith('--') ? undefined : given.slice(1);
    const entry =
      short === undefined
        ? undefined
        : Object.entries(allOptions(command)).find(([, spec]) => spec.short === short);
    const long = ambiguous[2] ?? (entry ? `--${entry[0]}` : given);
    const at = argv.findIndex((token) => token === given || token === long);
    const value = at === -1 ? undefined : argv[at + 1];
    return value === undefined
      ? `option ${long} needs a value`
      : `option ${long} needs a value, and "${value}" looks like an option; if it is the value, write ${long}=${value}`;
  }
  const noValue = /Option '(?:-\w, )?(--[\w-]+)' does not take an argument/.exec(message);
  if (noValue) return `option ${noValue[1]} does not take a value`;
  return message.split('\n')[0].split('. ')[0];
}

export function parseCommandArgs(command: Command, argv: readonly string[]): ParsedArgs {
  const specs = allOptions(command);
  const options: Record<
    string,
    { type: 'string' | 'boolean'; short?: string; multiple?: boolean; default?: string | boolean }
  > = {};
  for (const [name, spec] of Object.entries(specs)) {
    options[name] = {
      type: spec.type,
      ...(spec.short ? { short: spec.short } : {}),
      ...(spec.multiple ? { multiple: true } : {}),
      ...(spec.default === undefined ? {} : { default: spec.default }),
    };
  }
  let parsed: { values: Record<string, OptionValue>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...argv],
      options,
      strict: true,
      allowPositionals: true,
    }) as typeof parsed;
  } catch (err) {
    throw usageError(explain(err, command, argv));
  }
  const max = command.maxPositionals ?? 0;
  if (parsed.positionals.length > max) {
    throw usageError(`unexpected argument "${parsed.positionals[max]}"`);
  }
  const { values, positionals } = parsed;
  const string = (name: string): string | undefined => {
    const value = values[name];
    return typeof value === 'string'
      ? value
      : Array.isArray(value)
        ? value[value.length - 1]
        : undefined;
  };
  return {
    command: command.name,
    values,
    positionals,
    string,
    requireString(name) {
      const value = string(name);
      if (value === undefined || value === '')
        throw usageError(
          `missing --${name}${specs[name]?.valueName ? ` ${specs[name].valueName}` : ''}`,
        );
      return value;
    },
    strings(name) {
      const value = values[name];
      return Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
    },
    flag: (name) => values[name] === true,
    positional(index, name) {
      const value = positionals[index];
      if (value === undefined) throw usageError(`missing ${name}`);
      return value;
    },
  };
}

/** --help / -h anywhere before `--` wins over everything else. */
export function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some(
    (token) => token === '--help' || token === '-h',
  );
}
