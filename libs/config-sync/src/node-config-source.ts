import { type ConfigSource } from './config-source.js';
import { EmptyConfigSource, FileConfigSource } from './file-config-source.js';
import { RegistryConfigSource } from './registry-config-source.js';

/** How a worker or gateway learns its configuration (from its own env). */
export interface NodeSyncSettings {
  /** The registry to follow; the apps refuse `configFile` beside it. */
  registryUrl?: string | undefined;
  registryToken?: string | undefined;
  redisUrl?: string | undefined;
  keyPrefix: string;
  reconcileIntervalMs: number;
  /** A static ConfigSnapshot file, for deployments without a registry. */
  configFile?: string | undefined;
  /** Sync failures, and the keys a config file gave that the snapshot schema dropped (error undefined). */
  onError: (message: string, error: unknown) => void;
}

/** The registry when one is configured, else the snapshot file, else nothing (not ready). */
export function createNodeConfigSource(settings: NodeSyncSettings): ConfigSource {
  if (settings.registryUrl) {
    return new RegistryConfigSource({
      registryUrl: settings.registryUrl,
      ...(settings.registryToken ? { token: settings.registryToken } : {}),
      ...(settings.redisUrl ? { redisUrl: settings.redisUrl } : {}),
      keyPrefix: settings.keyPrefix,
      reconcileIntervalMs: settings.reconcileIntervalMs,
      onError: settings.onError,
    });
  }
  return settings.configFile
    ? new FileConfigSource(settings.configFile, (message) => settings.onError(message, undefined))
    : new EmptyConfigSource();
}

/**
 * What a node's artifact store needs to fetch from the registry's /v1/artifacts: the registry's
 * host exempt from the private-address guard (the operator named it) and its bearer token.
 */
export function registryArtifactAccess(
  registryUrl: string | undefined,
  token: string | undefined,
  allowedHosts: readonly string[],
): { allowedHosts: string[]; bearerTokens?: Record<string, string> } {
  if (!registryUrl) return { allowedHosts: [...allowedHosts] };
  const url = new URL(registryUrl);
  return {
    allowedHosts: [...allowedHosts, url.hostname],
    ...(token ? { bearerTokens: { [url.origin]: token } } : {}),
  };
}
