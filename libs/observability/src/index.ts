export * from './logger.js';
export * from './metrics-registry.js';
export * from './model-labels.js';
export * from './request-id.js';
export * from './server-timing.js';
export * from './nest-logger.js';
