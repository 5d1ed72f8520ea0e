export * from './address-policy.js';
export { resolveFileUri } from './file-source.js';
export * from './model-store.js';
export * from './model-directory.js';
export * from './hf-hub.js';
export { type S3Options, parseS3Uri } from './s3-source.js';
export { redactUri } from './redact-uri.js';
export { packBundle, unpackBundle } from './tar-bundle.js';
export { type ProxySettings, hasProxy, proxyFor, readProxySettings } from './outbound-proxy.js';
