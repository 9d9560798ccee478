/** Records a document that reached the authority and moves its range on when accepted. */
import { authorityVerdict, documentCode, type VerdictInput } from './authority.js';
import { advanceRange } from './numbering.js';
import type { EmulatorState, IssuedDocument } from './state.js';

export function issueDocument(
  state: EmulatorState,
  input: VerdictInput,
  request: unknown,
  emailed = false,
): IssuedDocument {
  const verdict = authorityVerdict(state, input);
  const time = new Date().toISOString();
  const accepted = verdict.reasons.length === 0;
  if (accepted) advanceRange(verdict.range, input.number);
  return state.record({
    company: input.company.id,
    kind: input.kind,
    prefix: input.prefix,
    number: input.number,
    cufe: documentCode(input.company, input.kind, input.prefix, input.number, time),
    accepted,
    reasons: verdict.reasons,
    time,
    request,
    emailed: accepted && emailed,
  });
}
