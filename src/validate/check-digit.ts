/**
 * Every `Identification` of type 31 (NIT) that carries a CheckDigit must carry
 * the right one: a wrong digit is a typo in the NIT or the digit, and the
 * authority would reject the document after numbering it.
 */
import { excerpt } from '../policy/excerpt.js';
import { nitCheckDigit, normaliseIdNumber } from '../policy/nit.js';
import { isObj, text } from './access.js';
import { joinPath, problem, type Problem } from './problem.js';

const NIT_TYPE = '31';

export function checkDigits(request: unknown): Problem[] {
  const problems: Problem[] = [];
  walk(request, [], problems);
  return problems;
}

/**
 * `at` is the path as its parts, joined only where an Identification is found: this walks every node of
 * every document at intake, and building a path string per node was most of its time.
 */
function walk(node: unknown, at: (string | number)[], problems: Problem[]): void {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      at.push(i);
      walk(node[i], at, problems);
      at.pop();
    }
    return;
  }
  if (!isObj(node)) return;
  for (const key in node) {
    if (!Object.hasOwn(node, key)) continue;
    const value = node[key];
    if (value === null || typeof value !== 'object') continue;
    at.push(key);
    if (key === 'Identification' && isObj(value))
      checkIdentification(value, joinPath('', ...at), problems);
    else walk(value, at, problems);
    at.pop();
  }
}

function checkIdentification(id: Record<string, unknown>, path: string, problems: Problem[]): void {
  if (text(id.DocumentType)?.trim() !== NIT_TYPE) return;
  const digit = text(id.CheckDigit)?.trim();
  if (digit === undefined || digit === '') return;
  const raw = text(id.DocumentNumber);
  if (raw === undefined) return;
  const nit = normaliseIdNumber(raw);
  if (!/^\d{1,15}$/.test(nit)) {
    problems.push(
      problem(
        'EDOC_VALIDATE_CHECK_DIGIT',
        joinPath(path, 'DocumentNumber'),
        `NIT ${excerpt(JSON.stringify(raw))} is not 1 to 15 digits, so its CheckDigit cannot be verified`,
      ),
    );
    return;
  }
  const expected = nitCheckDigit(nit);
  if (digit !== expected) {
    problems.push(
      problem(
        'EDOC_VALIDATE_CHECK_DIGIT',
        joinPath(path, 'CheckDigit'),
        `CheckDigit ${excerpt(digit)} does not match NIT ${nit} (expected ${expected})`,
      ),
    );
  }
}
