export * from './error-code.js';
export * from './modelgate-error.js';
export * from './status-tables.js';
