/**
 * @deprecated The kinds live in src/kinds/ (names.ts, registry.ts); import from there. Kept as a
 * re-export so code written against this path still builds.
 */
export { DOCUMENT_KINDS, isDocumentKind, kindsSharingNumbers, type DocumentKind } from '../kinds/index.js';
