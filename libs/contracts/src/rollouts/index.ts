export * from './rollout.schema.js';
export * from './rollout-view.js';
