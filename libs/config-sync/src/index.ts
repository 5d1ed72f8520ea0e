export * from './channels.js';
export * from './config-source.js';
export * from './file-config-source.js';
export * from './heartbeat.js';
export * from './load-retry.js';
export * from './node-heartbeat.js';
export * from './registry-config-source.js';
export * from './node-config-source.js';
