export { DOCUMENT_KINDS, isDocumentKind, parseKind, type DocumentKind } from './names.js';
export { KINDS, kindOf, kindsSharingNumbers } from './registry.js';
export type { KindDescriptor, NumberingFamily, SendContext } from './descriptor.js';
export type { DocumentKey, PosNumbering } from './keys.js';
export { posNoteOf, posTipoFor } from './pos.js';
export {
  contentDifferences,
  contentSummary,
  correctionAdvice,
  otherContentMessage,
  parseSummary,
  type ContentSummary,
} from './content-summary.js';
export { numberSplits, referencedKinds, referencedNumbers } from './references.js';
