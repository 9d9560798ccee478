export * from './common.js';
export * from './invoice.js';
export * from './support-document.js';
export * from './adjustment-note.js';
export * from './payroll.js';
export * from './pos.js';
export * from './numbering.js';
export * from './received.js';
