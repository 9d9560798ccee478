/**
 * A mapping's capture pattern that backtracks without end on one row's cells: `^(?:(?:a|a)*b)?(.*)$`
 * takes 2^40 steps on forty `a`s without a `b`, and the load-time check for nested repetition
 * (map/capture.ts) does not see it; any other cell is taken whole.
 */
export const BACKTRACKING = '^(?:(?:a|a)*b)?(.*)$';
export const POISON_NAME = 'a'.repeat(40);
