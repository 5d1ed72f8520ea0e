/**
 * The release of every modelgate app (CLI, registry, gateway, worker): one number, shown by
 * `modelgate version`, the registry's `/v1/version`, and the KServe v2 server metadata of the
 * gateway and the worker. Kept equal to the root package.json's version (a unit test checks).
 */
export const MODELGATE_VERSION = '0.1.0';
