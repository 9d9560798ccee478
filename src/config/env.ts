import { EdocError } from '../errors.js';
import { formatIssuePath } from '../service/schemas/common.js';

const EXPRESSION = /\$\$\{|\$\{([^}]*)\}?/g;
const BODY = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([\s\S]*))?$/;

function substituteString(
  text: string,
  env: NodeJS.ProcessEnv,
  file: string,
  path: PropertyKey[],
): string {
  return text.replace(EXPRESSION, (match: string, body: string | undefined) => {
    if (match === '$${') return '${';
    const where = `${file}: ${formatIssuePath(path)}`;
    const parsed = match.endsWith('}') && body !== undefined ? BODY.exec(body) : null;
    if (!parsed) {
      throw new EdocError(
        'EDOC_CONFIG_INVALID',
        `${where}: malformed substitution "${match}" (write \${NAME} or \${NAME:-default}; $\${ for a literal \${)`,
        { file, path: formatIssuePath(path) },
      );
    }
    const [, name, fallback] = parsed;
    const value = env[name];
    // `:-` as in the shell: the default also stands in for an empty variable.
    if (value !== undefined && value !== '') return value;
    if (fallback !== undefined) return fallback;
    throw new EdocError(
      'EDOC_CONFIG_ENV_MISSING',
      `${where}: environment variable ${name} is not set (set it, or write \${${name}:-default})`,
      { file, path: formatIssuePath(path), variable: name },
    );
  });
}

/**
 * Replaces `${VAR}` and `${VAR:-default}` in every string value of the parsed
 * YAML (keys are left alone). Working on values rather than on the raw text
 * means a substituted value can never change the YAML structure.
 */
export function substituteEnv(
  value: unknown,
  env: NodeJS.ProcessEnv,
  file: string,
  path: PropertyKey[] = [],
): unknown {
  if (typeof value === 'string')
    return value.includes('${') ? substituteString(value, env, file, path) : value;
  if (Array.isArray(value))
    return value.map((item, index) => substituteEnv(item, env, file, [...path, index]));
  if (value !== null && typeof value === 'object') {
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value))
      result[key] = substituteEnv(item, env, file, [...path, key]);
    return result;
  }
  return value;
}
