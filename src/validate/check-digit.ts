/**
 * Every `Identification` of type 31 (NIT) that carries a CheckDigit must carry
 * the right one: a wrong digit is a typo in the NIT or the digit, and the
 * authority would reject the document after numbering it. The bridge also
 * refuses a NIT that is not digits (`NIT800197268`: a label glued on by an
 * export), with or without its digit; the emulator, following the spec, does not.
 */
import { excerpt } from '../policy/excerpt.js';
import { nitCheckDigit, normaliseIdNumber } from '../policy/nit.js';
import { isObj, text } from './access.js';
import { joinPath, problem, type Problem } from './problem.js';

const NIT_TYPE = '31';

interface Walk {
  problems: Problem[];
  /** A NIT without a CheckDigit must still be 1 to 15 digits (the bridge's own check). */
  nitDigits: boolean;
}

export function checkDigits(request: unknown, options: { nitDigits?: boolean } = {}): Problem[] {
  const w: Walk = { problems: [], nitDigits: options.nitDigits ?? false };
  walk(request, [], w);
  return w.problems;
}

/**
 * `at` is the path as its parts, joined only where an Identification is found: this walks every node of
 * every document at intake, and building a path string per node was most of its time.
 */
function walk(node: unknown, at: (string | number)[], w: Walk): void {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      at.push(i);
      walk(node[i], at, w);
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
      checkIdentification(value, joinPath('', ...at), w);
    else walk(value, at, w);
    at.pop();
  }
}

function checkIdentification(id: Record<string, unknown>, path: string, w: Walk): void {
  if (text(id.DocumentType)?.trim() !== NIT_TYPE) return;
  const { problems } = w;
  const digit = text(id.CheckDigit)?.trim();
  const raw = text(id.DocumentNumber);
  if (raw === undefined) return;
  const nit = normaliseIdNumber(raw);
  if (digit === undefined || digit === '') {
    if (w.nitDigits && !/^\d{1,15}$/.test(nit))
      problems.push(
        problem(
          'EDOC_VALIDATE_NIT',
          joinPath(path, 'DocumentNumber'),
          `NIT ${excerpt(JSON.stringify(raw))} (DocumentType 31) is not 1 to 15 digits: a NIT is digits only; correct the id in the export (a label such as "NIT" or a letter is not part of it)`,
        ),
      );
    return;
  }
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
