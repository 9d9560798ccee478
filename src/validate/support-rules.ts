import type { Problem } from './problem.js';

export interface SupportRulesContext {
  /** Colombia's current date, `yyyy-MM-dd` (see policy/dates `colombiaToday`). */
  today: string;
}

/** The spec's support-document rules 2–7 (E5 and E6). */
export function supportRules(_request: unknown, _ctx: SupportRulesContext): Problem[] {
  return [];
}
