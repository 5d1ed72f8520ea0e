export * from './address-policy.js';
export { resolveFileUri } from './file-source.js';
export * from './model-store.js';
export { redactUri } from './redact-uri.js';
export { packBundle, unpackBundle } from './tar-bundle.js';
