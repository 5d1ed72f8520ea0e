import { hostname } from 'node:os';
import {
  type ConfigSource,
  HeartbeatPublisher,
  type NodeReport,
  createNodeConfigSource,
  dialableHost,
  withPort,
  nodeId,
  registryTarget,
} from '@modelgate/config-sync';
import { type GatewayConfig } from '../gateway.config.js';

/** What a gateway's heartbeat needs: start, beat now (after a change), stop and withdraw. */
export type Heartbeat = Pick<HeartbeatPublisher, 'start' | 'beat' | 'stop'>;

/** Failures of sync and heartbeats are reported, never fatal. */
export type SyncErrorHandler = (message: string, error: unknown) => void;

/**
 * Where this gateway learns its config snapshots (the registry, else GATEWAY_CONFIG_FILE, else
 * nothing): followed once per pod, by the only event loop or by the cluster primary.
 */
export function createGatewayConfigSource(config: GatewayConfig, onError: SyncErrorHandler): ConfigSource {
  return createNodeConfigSource({
    registryUrl: config.REGISTRY_URL,
    registryToken: config.REGISTRY_TOKEN,
    redisUrl: config.REDIS_URL,
    keyPrefix: config.REDIS_KEY_PREFIX,
    reconcileIntervalMs: config.GATEWAY_RECONCILE_INTERVAL_MS,
    configFile: config.GATEWAY_CONFIG_FILE,
    onError,
  });
}

/**
 * Who this gateway is in its heartbeat: its id (host and this process's pid: the cluster
 * primary's in a pod of several event loops) and the address it serves on.
 */
export function gatewayIdentity(config: GatewayConfig): Pick<NodeReport, 'id' | 'address'> {
  return {
    id: nodeId(hostname(), process.pid),
    address: withPort(dialableHost(config.GATEWAY_HOST, hostname()), config.GATEWAY_PORT),
  };
}

/** Whether the gateway heartbeats at all: to Redis, or to the registry over HTTP without it. */
export function heartbeatsEnabled(config: GatewayConfig): boolean {
  return config.REDIS_URL !== undefined || config.REGISTRY_URL !== undefined;
}

/** How often a heartbeat is renewed, in ms: a third of its TTL, as HeartbeatPublisher does. */
export function heartbeatIntervalMs(config: GatewayConfig): number {
  return Math.floor(config.GATEWAY_HEARTBEAT_TTL_MS / 3);
}

/**
 * The pod's heartbeat: to Redis (discovery and status), else — or when Redis writes fail — to the
 * registry (status); undefined when there is neither.
 */
export function createGatewayHeartbeat(
  config: GatewayConfig,
  describe: () => NodeReport,
  onError: SyncErrorHandler,
): HeartbeatPublisher | undefined {
  if (!heartbeatsEnabled(config)) return undefined;
  return new HeartbeatPublisher({
    ...(config.REDIS_URL === undefined ? {} : { redisUrl: config.REDIS_URL }),
    ...(config.REGISTRY_URL === undefined
      ? {}
      : { registry: registryTarget(config.REGISTRY_URL, config.REGISTRY_TOKEN) }),
    keyPrefix: config.REDIS_KEY_PREFIX,
    ttlMs: config.GATEWAY_HEARTBEAT_TTL_MS,
    intervalMs: heartbeatIntervalMs(config),
    describe,
    onError,
  });
}
