import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { EdocError } from '../errors.js';
import { checkApiKey } from './api-key.js';
import { substituteEnv } from './env.js';
import { deepFreeze } from './freeze.js';
import { describeIssues } from './issues.js';
import { checkMappings } from './mappings.js';
import { configSchema } from './schema.js';
import { checkConfigSize, parseConfigYaml } from './yaml-text.js';
import type { CompanyConfig, Config, ParsedConfig } from './schema.js';

/** Where the command line looks when no --config is given (relative to the working directory). */
export const DEFAULT_CONFIG_FILE = 'config/edoc-bridge.yaml';

export interface ResolveOptions {
  /** Shown in messages; the file the data came from. */
  file: string;
  env?: NodeJS.ProcessEnv;
  /** Relative paths resolve against this folder; default process.cwd(). */
  cwd?: string;
  /**
   * Resolve the companies' API keys (`${VAR}` in apiKey, apiKeyFile read). Commands that never call the
   * service pass false: the keys are then not looked at and every `apiKey` is ''. @defaultValue true
   */
  secrets?: boolean;
}

/**
 * The data with each company's apiKey (and the listener's token) replaced by a placeholder, so that
 * an unset `${VAR}` in them is not an error.
 */
function withoutSecrets(data: unknown): unknown {
  if (data === null || typeof data !== 'object') return data;
  let out = data as Record<string, unknown>;
  const { http } = out;
  if (
    http !== null &&
    typeof http === 'object' &&
    'token' in http &&
    typeof http.token === 'string'
  ) {
    out = { ...out, http: { ...http, token: 'not-read-not-read-not-read' } };
  }
  if (!Array.isArray(out.companies)) return out;
  const companies = (out.companies as unknown[]).map((company) =>
    company !== null &&
    typeof company === 'object' &&
    'apiKey' in company &&
    typeof company.apiKey === 'string'
      ? { ...company, apiKey: 'not-read' }
      : company,
  );
  return { ...out, companies };
}

function errnoOf(err: unknown): string {
  return err instanceof Error && 'code' in err ? String(err.code) : String(err);
}

async function readApiKeyFile(
  company: ParsedConfig['companies'][number],
  index: number,
  keyFile: string,
  file: string,
): Promise<string> {
  const where = `${file}: companies[${index}].apiKeyFile`;
  let text: string;
  try {
    text = await readFile(keyFile, 'utf8');
  } catch (err) {
    throw new EdocError(
      'EDOC_CONFIG_KEY_FILE',
      `${where}: cannot read the API key file of company "${company.alias}": ${keyFile} (${errnoOf(err)})`,
      { file, path: `companies[${index}].apiKeyFile`, company: company.alias, keyFile },
    );
  }
  const key = text.trim();
  if (key === '') {
    throw new EdocError(
      'EDOC_CONFIG_KEY_FILE',
      `${where}: the API key file of company "${company.alias}" is empty: ${keyFile}`,
      { file, path: `companies[${index}].apiKeyFile`, company: company.alias, keyFile },
    );
  }
  return key;
}

/**
 * Validates already-parsed configuration data (as YAML would give it): env
 * substitution, schema and defaults, absolute paths, API key files read, frozen.
 */
export async function resolveConfig(
  data: unknown,
  options: ResolveOptions,
): Promise<Readonly<Config>> {
  const { file } = options;
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const secrets = options.secrets ?? true;
  const substituted = substituteEnv((secrets ? data : withoutSecrets(data)) ?? {}, env, file);
  if (substituted === null || typeof substituted !== 'object' || Array.isArray(substituted)) {
    throw new EdocError(
      'EDOC_CONFIG_INVALID',
      `${file}: the top level must be a mapping of keys (service, companies, paths, ...)`,
      { file },
    );
  }
  // Top-level `x-*` keys (as in docker-compose) only hold YAML anchors for reuse; they are not settings.
  const settings = Object.fromEntries(
    Object.entries(substituted).filter(([key]) => !key.startsWith('x-')),
  );
  const parsed = configSchema.safeParse(settings);
  if (!parsed.success) {
    const problems = describeIssues(parsed.error.issues, settings, configSchema);
    const shown = problems.slice(0, 8).map((p) => (p.path ? `${p.path}: ${p.message}` : p.message));
    const more =
      problems.length > shown.length ? `; and ${problems.length - shown.length} more` : '';
    throw new EdocError('EDOC_CONFIG_INVALID', `${file}: ${shown.join('; ')}${more}`, {
      file,
      problems,
      path: problems[0]?.path,
    });
  }
  const config = parsed.data;
  const abs = (p: string): string => path.resolve(cwd, p);
  const companies: CompanyConfig[] = [];
  for (const [index, company] of config.companies.entries()) {
    const apiKeyFile = company.apiKeyFile === undefined ? undefined : abs(company.apiKeyFile);
    const apiKey = !secrets
      ? ''
      : apiKeyFile === undefined
        ? (company.apiKey as string)
        : await readApiKeyFile(company, index, apiKeyFile, file);
    if (secrets) {
      checkApiKey(apiKey, {
        file,
        path: `companies[${index}].${apiKeyFile === undefined ? 'apiKey' : 'apiKeyFile'}`,
        company: company.alias,
      });
    }
    companies.push({ ...company, apiKey, ...(apiKeyFile === undefined ? {} : { apiKeyFile }) });
  }
  const kinds = Object.fromEntries(
    Object.entries(config.kinds).map(([kind, settings]) => [
      kind,
      settings.mapping === undefined ? settings : { ...settings, mapping: abs(settings.mapping) },
    ]),
  ) as Config['kinds'];
  const resolved: Config = {
    ...config,
    companies,
    paths: {
      inbox: abs(config.paths.inbox),
      outbox: abs(config.paths.outbox),
      state: abs(config.paths.state),
      logs: abs(config.paths.logs),
    },
    kinds,
    masterData: {
      ...config.masterData,
      tables: Object.fromEntries(
        Object.entries(config.masterData.tables).map(([name, t]) => [
          name,
          { ...t, folder: abs(t.folder) },
        ]),
      ),
    },
    log: { ...config.log, file: abs(config.log.file) },
    emulator: {
      ...config.emulator,
      seed: abs(config.emulator.seed),
      ...(config.emulator.state === undefined ? {} : { state: abs(config.emulator.state) }),
    },
  };
  return deepFreeze(resolved);
}

/**
 * Loads the YAML configuration file. Every failure is an EdocError (EDOC_CONFIG_*)
 * whose message names the file (as given), the key path and what is wrong, and
 * never a key. `file` resolves against `options.cwd` (default: the working directory);
 * every relative path inside it against the configuration file's folder, so the file
 * means the same wherever the process starts (a service's working directory included).
 */
export async function loadConfig(
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  options: { cwd?: string; secrets?: boolean } = {},
): Promise<Readonly<Config>> {
  const resolvedFile = path.resolve(options.cwd ?? process.cwd(), file);
  let text: string;
  try {
    checkConfigSize(file, (await stat(resolvedFile)).size);
    text = await readFile(resolvedFile, 'utf8');
  } catch (err) {
    if (err instanceof EdocError) throw err;
    throw new EdocError(
      'EDOC_CONFIG_NOT_FOUND',
      `${file}: cannot read the configuration file (${errnoOf(err)})`,
      { file },
    );
  }
  const data = parseConfigYaml(text, file);
  const config = await resolveConfig(data, {
    file,
    env,
    cwd: path.dirname(resolvedFile),
    secrets: options.secrets,
  });
  await checkMappings(config, file);
  return config;
}
