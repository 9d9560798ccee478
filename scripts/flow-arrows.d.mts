// Types of scripts/flow-arrows.mjs, for test/architecture/flow.test.ts.
export interface ImportEdge {
  /** Importing file, relative to the src folder (`report/file-report.ts`). */
  from: string;
  /** Imported file, relative to the src folder. */
  to: string;
}
export interface FlowArrow extends ImportEdge {
  why: 'upstream' | 'unknown-layer' | 'ledger-operation';
}
export const LAYERS: readonly string[];
export const LEDGER_WRITERS: readonly string[];
export const LEDGER_RECORDS: readonly string[];
export const FILE_LAYERS: Readonly<Record<string, string>>;
export function layerOf(rel: string): string | undefined;
export function importsOf(srcDir: string): ImportEdge[];
export function flowArrows(srcDir: string): FlowArrow[];
export function importCycles(srcDir: string): string[][];
export function arrowKey(arrow: ImportEdge): string;
