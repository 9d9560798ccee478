// Regenerates docs/errors.md from the catalogue in src/errors.ts (test/docs/errors-catalogue.test.ts checks they agree).
import { readFileSync, writeFileSync } from 'node:fs';

const src = readFileSync(new URL('../src/errors.ts', import.meta.url), 'utf8');
let out = `# Errors

Every error edoc-bridge raises or reports carries a stable code from one catalogue, \`src/errors.ts\`.
Logs (\`code\` field), the ledger, \`NAME.result.json\` (\`errors[].code\`, file-level \`error.code\`) and
\`NAME.errors.csv\` (\`code\` column) use the same codes. A test fails when a code is missing here;
regenerate this page with \`node scripts/errors-doc.mjs\`.

Exit codes of the command line: 0 success, 1 some documents did not succeed, 2 usage or configuration
error (every \`EDOC_CONFIG_*\`, \`EDOC_CLI_USAGE\`, \`EDOC_MAPPING_INVALID\`, \`EDOC_LEDGER_LOCKED\`,
\`EDOC_LEDGER_REFUSED\`, \`EDOC_LEDGER_COPY_REFUSED\`, \`_SCHEMA\` and \`_VALUE\`, the emulator seed/state errors, \`EDOC_HTTP_LISTEN\`), 3 service unreachable or unauthorized, or the
PostgreSQL ledger unreachable (\`EDOC_LEDGER_UNREACHABLE\`, \`EDOC_LEDGER_CONNECTION_LOST\`).
`;
const body = src.slice(src.indexOf('export const ERRORS'), src.indexOf('} as const'));
// One item per code or section comment; a message Prettier moved to the line below its code stays with it.
const items = body.matchAll(
  /^\s*\/\/ --- (.+?) -+\s*$|^\s+(EDOC_[A-Z0-9_]+):\s*(?:\n\s*)?(['"`])(.*)\3,?\s*$/gm,
);
for (const [, section, code, , meaning] of items) {
  if (section) out += `\n## ${section}\n\n| code | meaning |\n|---|---|\n`;
  else out += `| \`${code}\` | ${meaning.replace(/\\'/g, "'")} |\n`;
}
writeFileSync(new URL('../docs/errors.md', import.meta.url), out);
