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
import { DEFAULT_LOAD_RETRY, HEARTBEAT_TTL_LIMITS_MS } from '@modelgate/config-sync';
import { DEFAULT_PREFILL_CHUNK_TOKENS } from '@modelgate/generation';
import { z } from 'zod';

/** Worker settings; the only place the worker reads `process.env`. */
export const workerConfigSchema = z.object({
  /** Interface both servers bind to. */
  WORKER_HOST: z.string().min(1).default('0.0.0.0'),
  /** Open Inference Protocol gRPC port (Triton's default). */
  WORKER_GRPC_PORT: integerFromEnv(1, 65535).default(8001),
  /** HTTP port for `/metrics` and `/health/*` (Triton's metrics port). */
  WORKER_HTTP_PORT: integerFromEnv(0, 65535).default(8002),
  /** Address other nodes reach this worker's gRPC server at (heartbeats): host:port, or a bare host (e.g. the pod IP) to which the gRPC port is added. */
  WORKER_ADVERTISE_ADDRESS: z.string().min(1).optional(),
  /** The worker group whose models this worker serves (ModelSpec.workerGroup). */
  WORKER_GROUP: z.string().min(1).default('default'),
  /** A ConfigSnapshot JSON file to serve from (static deployments, when REGISTRY_URL is unset). */
  WORKER_CONFIG_FILE: z.string().min(1).optional(),
  /** The registry to follow for config snapshots (live sync); not with WORKER_CONFIG_FILE. */
  REGISTRY_URL: z.url().optional(),
  /** Bearer token for the registry's snapshot and artifact endpoints (a viewer token). */
  REGISTRY_TOKEN: tokenSecretFromEnv(1).optional(),
  /** Redis for revision announcements and heartbeats; without it the worker polls and is not discovered. */
  REDIS_URL: z.string().min(1).optional(),
  /** Key prefix shared by every modelgate node on this Redis. */
  REDIS_KEY_PREFIX: z.string().min(1).default('modelgate'),
  /** How often to reconcile with the registry without an announcement, in ms. */
  WORKER_RECONCILE_INTERVAL_MS: millisecondsFromEnv(100).default(3000),
  /** Heartbeat time-to-live in ms: a worker that stops beating leaves routing after this. */
  WORKER_HEARTBEAT_TTL_MS: millisecondsFromEnv(
    HEARTBEAT_TTL_LIMITS_MS.min,
    HEARTBEAT_TTL_LIMITS_MS.max,
  ).default(6000),
  /** Content-addressed artifact cache directory. */
  WORKER_CACHE_DIR: z.string().min(1).default('.modelgate/worker-cache'),
  /** Comma-separated directories that `file://` artifact URIs may point into. */
  WORKER_ARTIFACT_ROOTS: listFromEnv.default([]),
  /** Whether `http(s)://` artifact URIs are allowed at all. */
  WORKER_ALLOW_HTTP_ARTIFACTS: booleanFromEnv.default(true),
  /** Comma-separated hosts or addresses exempt from the private-address (SSRF) guard, e.g. the registry (not with WORKER_ALLOW_HTTP_ARTIFACTS false). */
  WORKER_ARTIFACT_ALLOWED_HOSTS: listFromEnv.default([]),
  /** An S3-compatible store's URL for s3:// artifacts (e.g. http://minio:9000); unset = AWS S3. Credentials and region: the AWS SDK's standard chain. */
  S3_ENDPOINT_URL: z.string().url().optional(),
  ...outboundProxyEnv,
  /** Wait before retrying a failed model load, in ms; it doubles with each further failure. */
  WORKER_LOAD_RETRY_BASE_MS: millisecondsFromEnv(1).default(DEFAULT_LOAD_RETRY.baseDelayMs),
  /** Longest wait between attempts to load a model, in ms. */
  WORKER_LOAD_RETRY_MAX_MS: millisecondsFromEnv(1).default(DEFAULT_LOAD_RETRY.maxDelayMs),
  /** Attempts to load a model per config revision before giving up (the reason shows in status); a load that found the artifact cache full is retried until space returns. */
  WORKER_LOAD_RETRY_ATTEMPTS: integerFromEnv(1).default(DEFAULT_LOAD_RETRY.maxAttempts),
  /** How long SIGTERM waits for queued and in-flight requests before exiting anyway. */
  WORKER_DRAIN_TIMEOUT_MS: millisecondsFromEnv(0).default(30_000),
  /**
   * How long a loaded version that a new config revision no longer wants (its route moved, the
   * version policy dropped it, it was removed) keeps serving before it drains and unloads, in ms:
   * gateways apply the revision on their own schedule and may still send it requests meanwhile.
   * Longer than gateways take to apply a change (under a second with Redis; their reconcile poll
   * without it). 0 unloads at once. Default 10000.
   */
  WORKER_UNLOAD_GRACE_MS: millisecondsFromEnv(0, 3_600_000).default(10_000),
  /**
   * Whether an encoder model on the CPU whose instances share the cores (runtime.intraOpThreads 0,
   * instances 2 or more) also gets a solo session with a thread per core, for batches that find the
   * model idle: a lone request then computes on every core. It costs one more copy of the model in
   * memory; false keeps to the instances.
   */
  WORKER_SOLO_SESSION: booleanFromEnv.default(true),
  /**
   * Whether the solo session's intra-op threads spin between the parallel steps of a run, stopping
   * as soon as the run returns (session-options.ts): a lone request then pays no wake-up of a
   * sleeping thread per step, and no core is held between requests. false keeps them from spinning.
   */
  WORKER_SOLO_SPINNING: booleanFromEnv.default(true),
  /**
   * Whether a CPU encoder model's solo session opens on the worker's event-loop thread (any
   * instance count) and runs there the lone batches expected to take at most WORKER_INLINE_MAX_MS:
   * a request that finds its model idle then computes where it arrived, with no hop to a session
   * thread and back. Under load every batch still goes to the session threads. It costs one more
   * copy of the model in memory where the model has one instance; false keeps every run on threads.
   */
  WORKER_INLINE: booleanFromEnv.default(true),
  /**
   * The longest expected run, in ms, that may run inline: the bound on how long one inline run
   * holds the event loop (the estimate follows the model's measured runs).
   */
  WORKER_INLINE_MAX_MS: millisecondsFromEnv(1, 1000).default(10),
  /**
   * Whether the inline session's intra-op threads, after a run returns, keep spinning for
   * onnxruntime's own bounded while before they sleep (as a session with the library's defaults
   * does), so the next lone request finds them awake. It costs CPU for that while after each lone
   * request (bench/README.md reports it); false stops them as each run returns. Needs
   * WORKER_SOLO_SPINNING (the default).
   */
  WORKER_INLINE_IDLE_SPIN: booleanFromEnv.default(true),
  /**
   * Chunked prefill of generation: a prompt longer than this many tokens is prefilled in slices
   * of at most this many per loop turn, between the decode steps of the running sequences, so a
   * long prompt delays their next tokens by one slice rather than by its whole prefill. 0 prefills
   * every prompt whole.
   */
  WORKER_PREFILL_CHUNK_TOKENS: integerFromEnv(0, 65536).default(DEFAULT_PREFILL_CHUNK_TOKENS),
  /** CUDA device the CUDA and TensorRT providers run on. */
  WORKER_CUDA_DEVICE_ID: integerFromEnv(0).default(0),
  /** Log level. */
  WORKER_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Test hooks: honour the `x-modelgate-test-hold-ms` request header, which holds the batch that
   * carries it. Never enable in production.
   */
  WORKER_TEST_HOOKS: booleanFromEnv.default(false),
  /**
   * Test hook (with WORKER_TEST_HOOKS only): comma-separated model ids (`name:version`) whose every
   * ModelInfer fails with INTERNAL although the model loaded, as a model broken at run time would.
   * Never in production.
   */
  WORKER_TEST_FAILING_MODELS: listFromEnv.default([]),
});

export type WorkerConfig = z.infer<typeof workerConfigSchema>;

/**
 * GPU settings onnxruntime-node cannot pass: its binding hands the CUDA and TensorRT providers
 * only `deviceId`, and once it passes provider options TensorRT ignores its ORT_TENSORRT_*
 * variables. Refused with that reason rather than accepted and ignored.
 */
const NOT_PASSED_BY_ONNXRUNTIME_NODE =
  "is not supported: onnxruntime-node's binding passes only the device id (WORKER_CUDA_DEVICE_ID) to the CUDA and TensorRT providers";
const RETIRED_KEYS: Readonly<Record<string, string>> = {
  WORKER_TENSORRT_CACHE_DIR: `${NOT_PASSED_BY_ONNXRUNTIME_NODE}; TensorRT builds its engines when a model loads`,
  WORKER_TENSORRT_FP16: `${NOT_PASSED_BY_ONNXRUNTIME_NODE}; TensorRT engines are built in fp32`,
  WORKER_CUDA_MEMORY_LIMIT_BYTES: `${NOT_PASSED_BY_ONNXRUNTIME_NODE}; the CUDA arena has no limit`,
};

const HEARTBEATS_GO_TO = ['REDIS_URL', 'REGISTRY_URL'];

/** Keys that act only in some configurations (refused where they would do nothing). */
const IDLE_KEY_RULES: readonly IdleKeyRule[] = [
  REDIS_KEY_PREFIX_RULE,
  REGISTRY_TOKEN_RULE,
  artifactAllowedHostsRule('WORKER'),
  ['WORKER_CONFIG_FILE', notBesideRegistryUrl],
  ['WORKER_RECONCILE_INTERVAL_MS', actsOnlyWith(['REGISTRY_URL'], 'paces polling the registry')],
  ['WORKER_HEARTBEAT_TTL_MS', actsOnlyWith(HEARTBEATS_GO_TO, 'heartbeats go to Redis or the registry')],
  ['WORKER_ADVERTISE_ADDRESS', actsOnlyWith(HEARTBEATS_GO_TO, 'the address is advertised in heartbeats')],
  [
    'WORKER_INLINE',
    (env) =>
      booleanFromEnv.safeParse(env.WORKER_SOLO_SESSION).data === false &&
      booleanFromEnv.safeParse(env.WORKER_INLINE).data === true
        ? 'runs the solo session inline, and WORKER_SOLO_SESSION=false opens none: leave one of them out'
        : undefined,
  ],
  [
    'WORKER_INLINE_MAX_MS',
    (env) =>
      booleanFromEnv.safeParse(env.WORKER_INLINE).data === false ||
      booleanFromEnv.safeParse(env.WORKER_SOLO_SESSION).data === false
        ? 'bounds inline runs, and inline execution is off (WORKER_INLINE=false or WORKER_SOLO_SESSION=false)'
        : undefined,
  ],
  [
    'WORKER_INLINE_IDLE_SPIN',
    (env) =>
      booleanFromEnv.safeParse(env.WORKER_INLINE).data === false ||
      booleanFromEnv.safeParse(env.WORKER_SOLO_SESSION).data === false ||
      booleanFromEnv.safeParse(env.WORKER_SOLO_SPINNING).data === false
        ? 'sets how the inline session spins, and inline execution or its spinning is off (WORKER_INLINE, WORKER_SOLO_SESSION or WORKER_SOLO_SPINNING false)'
        : undefined,
  ],
  [
    'WORKER_SOLO_SPINNING',
    (env) =>
      booleanFromEnv.safeParse(env.WORKER_SOLO_SESSION).data === false
        ? 'sets how the solo session runs, and WORKER_SOLO_SESSION=false opens none: leave one of them out'
        : undefined,
  ],
];

/** Parses the environment; throws listing every bad key by name (never its value). */
export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  refuseRetiredKeys(env, RETIRED_KEYS, 'worker');
  refuseIdleKeys(env, IDLE_KEY_RULES, 'worker');
  refuseLowercaseProxyEnv(env, 'worker');
  const config = parseEnv(workerConfigSchema, env, 'worker');
  if (config.WORKER_TEST_FAILING_MODELS.length > 0 && !config.WORKER_TEST_HOOKS) {
    throw new Error(
      'invalid worker configuration:\n  WORKER_TEST_FAILING_MODELS: a test hook, honoured only with WORKER_TEST_HOOKS=true',
    );
  }
  if (config.WORKER_LOAD_RETRY_BASE_MS > config.WORKER_LOAD_RETRY_MAX_MS) {
    throw new Error(
      `invalid worker configuration:\n  WORKER_LOAD_RETRY_BASE_MS: the first wait (${config.WORKER_LOAD_RETRY_BASE_MS} ms) ` +
        `exceeds WORKER_LOAD_RETRY_MAX_MS (${config.WORKER_LOAD_RETRY_MAX_MS} ms), the longest: raise the one or lower the other`,
    );
  }
  return config;
}

/** The env var names the worker reads (the Helm chart and compose file are checked against it). */
export const WORKER_ENV_KEYS = Object.keys(workerConfigSchema.shape);
