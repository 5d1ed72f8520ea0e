/** Nest injection tokens of the worker's non-class providers. */
export const WORKER_CONFIG = Symbol('WORKER_CONFIG');
export const LOGGER = Symbol('LOGGER');
export const CONFIG_SOURCE = Symbol('CONFIG_SOURCE');
