/** Nest injection tokens of the gateway's non-class providers. */
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
export const LOGGER = Symbol('LOGGER');
export const CONFIG_SOURCE = Symbol('CONFIG_SOURCE');
export const ASYNC_INFERENCE = Symbol('ASYNC_INFERENCE');
/** `() => Promise<string>`: the Prometheus text /metrics answers (the pod's aggregate in a cluster). */
export const METRICS_TEXT = Symbol('METRICS_TEXT');
