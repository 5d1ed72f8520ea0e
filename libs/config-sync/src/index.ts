export * from './config-source.js';
export * from './file-config-source.js';
