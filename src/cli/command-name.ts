/**
 * The command's name in an argument list. It imports nothing: bin/edoc-bridge.js asks it (through
 * early-hangup.ts) before the program loads.
 */

/** The command's name: the first argument that is not an option (`--config FILE` is skipped), and the rest. */
export function splitCommand(argv: readonly string[]): {
  name: string | undefined;
  rest: string[];
} {
  for (let i = 0; i < argv.length; i += 1) {
    const token = argv[i];
    if (token === '--') break;
    if (token === '--config') {
      i += 1;
      continue;
    }
    if (token.startsWith('-')) continue;
    return { name: token, rest: [...argv.slice(0, i), ...argv.slice(i + 1)] };
  }
  return { name: undefined, rest: [...argv] };
}
