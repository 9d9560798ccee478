/**
 * The dates of an E1 document that cannot stand beside its issue date.
 *
 * An E1 document due before it was issued (`DueDate` 2026-11-10 on an invoice of 2026-11-18, or a
 * `PaymentMeans` entry's `DueDate` so) is almost always two swapped date columns, a mistyped year or a
 * month-first date read day-first: issued, its payment terms would be false. The bridge's own check: the
 * spec shows no rule on the due date, so the emulator accepts it. A due date on the issue day is fine;
 * a date that is not ISO is the schema's to report.
 *
 * A note referring to a document dated after the note itself (`DocumentReferences[0].IssueDate`
 * 2026-11-25 on a credit note of 2026-11-21) names an invoice that did not exist yet: the wrong
 * invoice, or a mistyped date. Also the bridge's own check.
 */
import { arr, obj, text } from '../validate/access.js';
import { joinPath, problem, type Problem } from '../validate/problem.js';

const ISO_DAY = /^(\d{4}-\d{2}-\d{2})(?:T.*)?$/;

/** The `yyyy-MM-dd` of an ISO date or date-time, or undefined. */
function day(value: unknown): string | undefined {
  const t = text(value)?.trim();
  return t === undefined ? undefined : ISO_DAY.exec(t)?.[1];
}

export function e1DateRules(request: unknown): Problem[] {
  const r = obj(request);
  const issued = day(r?.IssueDate);
  if (issued === undefined) return [];
  const out: Problem[] = [];
  const check = (path: string, value: unknown): void => {
    const due = day(value);
    if (due === undefined || due >= issued) return;
    out.push(
      problem(
        'EDOC_VALIDATE_DUE_DATE',
        path,
        `The document falls due (${path} ${due}) before it is issued (IssueDate ${issued}): two date columns swapped, a mistyped date, or a month-first date read day-first (the mapping's format.date)? It is not sent`,
      ),
    );
  };
  check('DueDate', r?.DueDate);
  // one mistake once: a payment due on the DueDate already reported (one `vence` column) is not repeated
  const reported = out.length > 0 ? day(r?.DueDate) : undefined;
  arr(r?.PaymentMeans)?.forEach((m, i) => {
    const due = obj(m)?.DueDate;
    if (reported === undefined || day(due) !== reported)
      check(joinPath('PaymentMeans', i, 'DueDate'), due);
  });
  arr(r?.DocumentReferences)?.forEach((ref, i) => {
    const referred = day(obj(ref)?.IssueDate);
    if (referred === undefined || referred <= issued) return;
    const path = joinPath('DocumentReferences', i, 'IssueDate');
    out.push(
      problem(
        'EDOC_VALIDATE_REFERENCE_DATE',
        path,
        `The document it refers to is dated (${path} ${referred}) after this one is issued (IssueDate ${issued}): the wrong document referred to, or a mistyped date? It is not sent`,
      ),
    );
  });
  return out;
}
