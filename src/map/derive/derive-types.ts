/** The shapes a derivation works on (their own file, so the derivations and the registry do not import each other). */
import type { EvalContext } from '../eval-context.js';

export interface DeriveLine {
  fields: Record<string, unknown>;
  /** The derivation's named line inputs (e.g. `vat: '19.00'`), undefined when empty. */
  inputs: Record<string, unknown>;
  rows: number[];
  /** A line field's exact value where `as: decimal` rounded digits away (`UnitPrice: '0.125'`). */
  exact?: Record<string, string>;
}

export interface DeriveInput {
  request: Record<string, unknown>;
  lines: DeriveLine[];
  linesField: string;
  ctx: EvalContext;
}

export type Derivation = (input: DeriveInput) => void;
