export * from './admin/index.js';
export * from './config/index.js';
export * from './errors/index.js';
export * from './openapi/index.js';
export * from './proto-path.js';
export * from './rollouts/index.js';
export * from './tensors/index.js';
export * from './version.js';
