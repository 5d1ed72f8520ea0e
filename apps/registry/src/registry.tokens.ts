/** Injection token of the parsed RegistryConfig. */
export const REGISTRY_CONFIG = Symbol('REGISTRY_CONFIG');

/** Injection token of the registry's pino logger. */
export const LOGGER = Symbol('LOGGER');
