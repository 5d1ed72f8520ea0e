export * from './config-snapshot.schema.js';
export * from './endpoint-spec.schema.js';
export * from './model-spec.schema.js';
export * from './model-task.js';
export * from './spec-fields.schema.js';
export * from './tensor-metadata.schema.js';
export * from './validation-issues.js';
export * from './env-schema.js';
