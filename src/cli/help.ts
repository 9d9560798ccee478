import type { Command, OptionSpecs } from './command.js';
import { GLOBAL_OPTIONS } from './parse.js';

function optionRows(options: OptionSpecs): string[][] {
  return Object.entries(options).map(([name, spec]) => {
    const flag = `${spec.short ? `-${spec.short}, ` : '    '}--${name}${spec.type === 'string' ? ` ${spec.valueName ?? 'VALUE'}` : ''}`;
    const extra =
      spec.default !== undefined && spec.default !== false
        ? ` (default ${String(spec.default)})`
        : '';
    return [flag, `${spec.description}${spec.multiple ? ' (repeatable)' : ''}${extra}`];
  });
}

function table(rows: string[][], indent = '  '): string[] {
  const width = Math.max(0, ...rows.map((row) => row[0].length));
  return rows.map((row) => `${indent}${row[0].padEnd(width)}  ${row[1]}`.trimEnd());
}

export function generalHelp(commands: readonly Command[], version: string): string {
  return [
    `edoc-bridge ${version} — bridge between an ERP and the electronic-document submission service`,
    '',
    'Usage: edoc-bridge <command> [options]',
    '',
    'Commands:',
    ...table(commands.map((command) => [command.name, command.summary])),
    '',
    'Global options:',
    ...table([...optionRows(GLOBAL_OPTIONS), ['    --version', 'print the version']]),
    '',
    'Exit codes: 0 success, 1 some documents did not succeed, 2 usage or configuration error,',
    '            3 service unreachable or unauthorized.',
    '',
    "Run 'edoc-bridge <command> --help' for a command's options and examples.",
  ].join('\n');
}

export function commandHelp(command: Command): string {
  const lines = [`Usage: ${command.usage}`, '', command.summary];
  if (command.description) lines.push('', ...command.description.split('\n'));
  if (Object.keys(command.options).length > 0)
    lines.push('', 'Options:', ...table(optionRows(command.options)));
  lines.push('', 'Global options:', ...table(optionRows(GLOBAL_OPTIONS)));
  if (command.examples.length > 0)
    lines.push('', 'Examples:', ...command.examples.map((example) => `  ${example}`));
  return lines.join('\n');
}
