import { type WorkerGroup, workerGroupSchema } from '@modelgate/contracts';
import {
  type IdleKeyRule,
  actsOnlyWith,
  booleanFromEnv,
  listFromEnv,
  millisecondsFromEnv,
  notBesideRegistryUrl,
  REDIS_KEY_PREFIX_RULE,
  REGISTRY_TOKEN_RULE,
  artifactAllowedHostsRule,
  outboundProxyEnv,
  parseEnv,
  refuseLowercaseProxyEnv,
  refuseIdleKeys,
  refuseRetiredKeys,
  integerFromEnv,
  tokenSecretFromEnv,
} from '@modelgate/contracts';
import { HEARTBEAT_TTL_LIMITS_MS } from '@modelgate/config-sync';
import { z } from 'zod';
import { teiDefaultsFromEnv } from './tei/tei-endpoint.js';

/**
 * `group=host:port,host:port;group2=host:port` → worker groups. Each address is a gRPC target;
 * an empty value means no static groups.
 */
const workerGroupsFromEnv = z.string().transform((value, ctx): WorkerGroup[] => {
  const groups: WorkerGroup[] = [];
  for (const entry of value.split(';').map((item) => item.trim())) {
    if (entry.length === 0) continue;
    const [name = '', addresses = ''] = entry.split('=', 2).map((part) => part.trim());
    const parsed = workerGroupSchema.safeParse({
      name,
      addresses: addresses
        .split(',')
        .map((address) => address.trim())
        .filter((address) => address.length > 0),
    });
    if (!entry.includes('=') || !parsed.success || parsed.data.addresses.length === 0) {
      ctx.addIssue({
        code: 'custom',
        message: `'${name}' must be group=host:port[,host:port] with a lowercase group name`,
      });
      continue;
    }
    if (groups.some((group) => group.name === parsed.data.name)) {
      // The later one replaced the earlier one's addresses.
      ctx.addIssue({
        code: 'custom',
        message: `group '${name}' is given twice: list all its addresses in one entry (${name}=host:port,host:port)`,
      });
      continue;
    }
    groups.push(parsed.data);
  }
  return groups;
});

/** Gateway settings; the only place the gateway reads `process.env`. */
export const gatewayConfigSchema = z.object({
  /** Interface the HTTP server binds to. */
  GATEWAY_HOST: z.string().min(1).default('0.0.0.0'),
  /** Public HTTP port (DESIGN §4). */
  GATEWAY_PORT: integerFromEnv(0, 65535).default(8080),
  /**
   * Port of the gateway's Open Inference Protocol gRPC face (text to endpoints, tensors to models,
   * ModelStreamInfer for generation; grpc/gateway-grpc.ts), on GATEWAY_HOST; off when unset.
   */
  GATEWAY_GRPC_PORT: integerFromEnv(0, 65535).optional(),
  /** Event loops serving HTTP: `auto` = one per core (Node cluster), or a number; one with GATEWAY_LOCAL_WORKER. */
  GATEWAY_WORKERS: z.union([z.literal('auto'), integerFromEnv(1, 256)]).default('auto'),
  /**
   * Co-located mode: a worker runs inside this process, configured by the usual WORKER_* variables
   * (and REGISTRY_URL, REDIS_URL), serving gRPC and heartbeating like any worker; this gateway
   * calls it in-process, with no gRPC hop, through the same client as remote workers (which keep
   * working beside it). One event loop serves HTTP then (GATEWAY_WORKERS `auto` means 1).
   */
  GATEWAY_LOCAL_WORKER: booleanFromEnv.default(false),
  /** A ConfigSnapshot JSON file to serve from (static deployments, when REGISTRY_URL is unset). */
  GATEWAY_CONFIG_FILE: z.string().min(1).optional(),
  /** The registry to follow for config snapshots (live sync); not with GATEWAY_CONFIG_FILE. */
  REGISTRY_URL: z.url().optional(),
  /** Bearer token for the registry's snapshot and artifact endpoints (a viewer token). */
  REGISTRY_TOKEN: tokenSecretFromEnv(1).optional(),
  /**
   * Static worker addresses per worker group, `group=host:port,host:port;group2=host:port`, e.g.
   * for standalone mode without Redis, where no heartbeats supply them; discovery from heartbeats
   * takes precedence when it knows a model's workers. A config snapshot that lists workerGroups
   * beside them is refused (one source of addresses).
   */
  GATEWAY_WORKER_ADDRESSES: workerGroupsFromEnv.default([]),
  /** Redis for revision announcements, heartbeats and worker discovery. */
  REDIS_URL: z.string().min(1).optional(),
  /** Key prefix shared by every modelgate node on this Redis. */
  REDIS_KEY_PREFIX: z.string().min(1).default('modelgate'),
  /** How often to reconcile with the registry without an announcement, in ms. */
  GATEWAY_RECONCILE_INTERVAL_MS: millisecondsFromEnv(100).default(3000),
  /** How often to re-read worker heartbeats for discovery, in ms. */
  GATEWAY_DISCOVERY_INTERVAL_MS: millisecondsFromEnv(100).default(1000),
  /**
   * How long asynchronous results (and failures) stay retrievable at GET /jobs/:id, in seconds
   * (needs REDIS_URL); then they read as unknown and are removed from Redis within the TTL again,
   * at most a minute later.
   */
  GATEWAY_ASYNC_RESULT_TTL_SECONDS: integerFromEnv(1).default(3600),
  /** Asynchronous jobs each gateway runs at once (with several event loops, one of them runs them all). */
  GATEWAY_ASYNC_CONCURRENCY: integerFromEnv(1).default(8),
  /** Heartbeat time-to-live of this gateway, in ms. */
  GATEWAY_HEARTBEAT_TTL_MS: millisecondsFromEnv(
    HEARTBEAT_TTL_LIMITS_MS.min,
    HEARTBEAT_TTL_LIMITS_MS.max,
  ).default(6000),
  /** Cache directory for tokenizer artifacts (never model weights). */
  GATEWAY_CACHE_DIR: z.string().min(1).default('.modelgate/gateway-cache'),
  /** Comma-separated directories that `file://` tokenizer URIs may point into. */
  GATEWAY_ARTIFACT_ROOTS: listFromEnv.default([]),
  /** Whether `http(s)://` tokenizer URIs are allowed. */
  GATEWAY_ALLOW_HTTP_ARTIFACTS: booleanFromEnv.default(true),
  /** Comma-separated hosts exempt from the private-address (SSRF) guard, e.g. the registry (not with GATEWAY_ALLOW_HTTP_ARTIFACTS false). */
  GATEWAY_ARTIFACT_ALLOWED_HOSTS: listFromEnv.default([]),
  /** An S3-compatible store's URL for s3:// artifacts (e.g. http://minio:9000); unset = AWS S3. Credentials and region: the AWS SDK's standard chain. */
  S3_ENDPOINT_URL: z.string().url().optional(),
  ...outboundProxyEnv,
  /**
   * Whether /serve calls for the same model that arrive in the same event-loop turn share one
   * ModelInfer (up to maxBatchSize × instances rows, token lengths within a factor of two; each
   * keeps its own deadline, cancellation and answer): fewer gRPC calls per request under load.
   * Token rows are right-padded with zeros under their attention mask, which modelgate workers cut
   * off; `false` (one ModelInfer per call) for workers that compute padding, such as a Triton server.
   */
  GATEWAY_MERGE_CALLS: booleanFromEnv.default(true),
  /**
   * How long a worker may owe every call sent to it an answer, while another worker answers, before
   * it is ejected as stalled (a stopped process, a wedged event loop) and the calls it owes are
   * retried elsewhere, in ms. Longer than a model's longest run plus queue wait. Default 3000.
   */
  GATEWAY_WORKER_STALL_MS: millisecondsFromEnv(100, 600_000).default(3000),
  /** Largest request body accepted, in bytes (larger → 413); an image endpoint's /serve bodies are bounded by its maxImageBytes instead. */
  GATEWAY_BODY_LIMIT_BYTES: integerFromEnv(1024).default(1024 * 1024),
  /**
   * After SIGTERM/SIGINT, how long the gateway keeps serving with /health/ready already 503 before
   * it stops accepting, in ms: the time a load balancer (a Kubernetes Service) needs to stop sending
   * here. 0 (the default) suits a gateway nobody balances by readiness (standalone, one process);
   * the Helm chart sets 5000.
   */
  GATEWAY_SHUTDOWN_DELAY_MS: millisecondsFromEnv(0, 600_000).default(0),
  /** Once it stops accepting, how long the gateway waits for in-flight requests before it exits anyway, in ms. */
  GATEWAY_DRAIN_TIMEOUT_MS: millisecondsFromEnv(0, 3_600_000).default(30_000),
  /**
   * Longest a client may take to send a request's headers, in ms; then 408 and the connection is
   * closed (a slowloris client holds no connection longer). Default 10000.
   */
  GATEWAY_HEADERS_TIMEOUT_MS: millisecondsFromEnv(100, 600_000).default(10_000),
  /**
   * Longest a client may take to send a whole request, headers and body, in ms; then 408 and the
   * connection is closed (a body trickled a byte at a time). At least GATEWAY_HEADERS_TIMEOUT_MS;
   * answers (streams included) are not bounded by it. Default 60000.
   */
  GATEWAY_RECEIVE_TIMEOUT_MS: millisecondsFromEnv(100, 3_600_000).default(60_000),
  /**
   * How long a keep-alive connection may sit idle after its last answer before the gateway closes
   * it, in ms. Keep it above the idle timeout of a load balancer in front (60 s on AWS ALB and
   * GCP's), so the balancer, not the gateway, closes a connection it might reuse. Default 72000.
   */
  GATEWAY_KEEP_ALIVE_TIMEOUT_MS: millisecondsFromEnv(100, 3_600_000).default(72_000),
  /** Serve the OpenAPI document and UI at /docs. */
  GATEWAY_DOCS: booleanFromEnv.default(true),
  /**
   * The endpoint of the TEI-compatible routes (/embed, /rerank, /predict, …) when a request names
   * none (no `model` field, no x-modelgate-endpoint header): `name` for every route, and/or
   * `route=name` entries, e.g. `embed=embedder,rerank=ranker`.
   */
  GATEWAY_TEI_DEFAULT_ENDPOINT: teiDefaultsFromEnv.default({ byRoute: {} }),
  /** Log level. */
  GATEWAY_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

/** Keys the gateway no longer reads, refused with where their job went rather than ignored. */
const RETIRED_KEYS: Readonly<Record<string, string>> = {
  GATEWAY_DEFAULT_TIMEOUT_MS:
    "is no longer read: a request's deadline is its endpoint's timeoutMs, else its model's batching.defaultTimeoutMs",
};

/** Keys that act only in some configurations (refused where they would do nothing). */
const IDLE_KEY_RULES: readonly IdleKeyRule[] = [
  REDIS_KEY_PREFIX_RULE,
  REGISTRY_TOKEN_RULE,
  artifactAllowedHostsRule('GATEWAY'),
  ['GATEWAY_CONFIG_FILE', notBesideRegistryUrl],
  [
    'GATEWAY_HEARTBEAT_TTL_MS',
    actsOnlyWith(['REDIS_URL', 'REGISTRY_URL'], 'heartbeats go to Redis or the registry'),
  ],
  [
    'GATEWAY_DISCOVERY_INTERVAL_MS',
    actsOnlyWith(['REDIS_URL'], 'workers are discovered from heartbeats in Redis'),
  ],
  [
    'GATEWAY_ASYNC_RESULT_TTL_SECONDS',
    actsOnlyWith(['REDIS_URL'], 'async inference keeps its jobs in Redis'),
  ],
  ['GATEWAY_ASYNC_CONCURRENCY', actsOnlyWith(['REDIS_URL'], 'async inference keeps its jobs in Redis')],
  [
    'GATEWAY_RECONCILE_INTERVAL_MS',
    // It paces polling the registry, and an event loop's reconnecting to its cluster primary.
    (env) =>
      env.REGISTRY_URL === undefined && env.GATEWAY_WORKERS?.trim() === '1'
        ? 'paces polling REGISTRY_URL and event loops reconnecting to their primary, and one event loop without a registry has neither: set REGISTRY_URL, or leave it out'
        : undefined,
  ],
];

/** Parses the environment; throws listing every bad key by name (never its value). */
export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  refuseRetiredKeys(env, RETIRED_KEYS, 'gateway');
  refuseIdleKeys(env, IDLE_KEY_RULES, 'gateway');
  refuseLowercaseProxyEnv(env, 'gateway');
  const config = parseEnv(gatewayConfigSchema, env, 'gateway');
  if (config.GATEWAY_RECEIVE_TIMEOUT_MS < config.GATEWAY_HEADERS_TIMEOUT_MS) {
    throw new Error(
      'invalid gateway configuration:\n  GATEWAY_RECEIVE_TIMEOUT_MS: bounds the whole request, headers included, so it must be at least ' +
        `GATEWAY_HEADERS_TIMEOUT_MS (${config.GATEWAY_HEADERS_TIMEOUT_MS})`,
    );
  }
  if (
    config.GATEWAY_LOCAL_WORKER &&
    typeof config.GATEWAY_WORKERS === 'number' &&
    config.GATEWAY_WORKERS > 1
  ) {
    throw new Error(
      'invalid gateway configuration:\n  GATEWAY_WORKERS: a co-located worker (GATEWAY_LOCAL_WORKER=true) lives in one event loop; ' +
        'set GATEWAY_WORKERS to 1 or auto, or run the worker as its own process',
    );
  }
  return config;
}

/** Event loops this gateway runs: GATEWAY_WORKERS, `auto` being one per core, or one with a local worker. */
export function gatewayEventLoops(config: GatewayConfig, cores: number): number {
  if (config.GATEWAY_LOCAL_WORKER) return 1;
  return config.GATEWAY_WORKERS === 'auto' ? cores : config.GATEWAY_WORKERS;
}

/** The env var names the gateway reads (the Helm chart and compose file are checked against it). */
export const GATEWAY_ENV_KEYS = Object.keys(gatewayConfigSchema.shape);
