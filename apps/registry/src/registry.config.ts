import {
  type IdleKeyRule,
  actsOnlyWith,
  booleanFromEnv,
  listFromEnv,
  millisecondsFromEnv,
  outboundProxyEnv,
  parseEnv,
  refuseLowercaseProxyEnv,
  REDIS_KEY_PREFIX_RULE,
  refuseIdleKeys,
  integerFromEnv,
  tokenSecretFromEnv,
} from '@modelgate/contracts';
import { z } from 'zod';

/** A Postgres identifier we are happy to interpolate (schema names). */
const SQL_IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** Where the registry's tables live; also all `npm run migrate` needs. */
export const databaseConfigSchema = z.object({
  /** Postgres connection string, e.g. `postgres://modelgate:secret@db:5432/modelgate`. */
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// connection string'),
  /** Schema holding the registry's tables (tests use one schema per file). */
  DATABASE_SCHEMA: z
    .string()
    .regex(SQL_IDENTIFIER, 'must be a lowercase SQL identifier (letters, digits, _)')
    .default('public'),
  /** Most Postgres connections in the pool. */
  DATABASE_POOL_SIZE: integerFromEnv(1, 100).default(10),
});

/** Registry settings; the only place the registry reads `process.env`. */
export const registryConfigSchema = databaseConfigSchema.extend({
  /** Interface the HTTP server binds to. */
  REGISTRY_HOST: z.string().min(1).default('0.0.0.0'),
  /** HTTP port of the admin API (DESIGN §4). */
  REGISTRY_PORT: integerFromEnv(0, 65535).default(8081),
  /** Redis for config announcements and the preparation queue; without it both run in-process. */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  /** Prefix of every Redis key and channel: `<prefix>:config`, `<prefix>:model-preparation:*`. */
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1-64 letters, digits, dots, dashes or underscores')
    .default('modelgate'),
  /** The first admin token; when unset, one is generated and printed once at the first start. */
  REGISTRY_BOOTSTRAP_TOKEN: tokenSecretFromEnv(16).optional(),
  /** Content-addressed store of uploaded artifacts (`sha256/<hex>`), served at /v1/artifacts. */
  REGISTRY_ARTIFACT_DIR: z.string().min(1).default('.modelgate/artifacts'),
  /** Cache of artifacts fetched to prepare registered models. */
  REGISTRY_CACHE_DIR: z.string().min(1).default('.modelgate/registry-cache'),
  /** Comma-separated directories that registered `file://` artifact URIs may point into. */
  REGISTRY_ARTIFACT_ROOTS: listFromEnv.default([]),
  /** Whether registered artifacts may be `http(s)://` URIs. */
  REGISTRY_ALLOW_HTTP_ARTIFACTS: booleanFromEnv.default(true),
  /** Comma-separated hosts, addresses or CIDR blocks exempt from the private-address (SSRF) guard. */
  REGISTRY_ARTIFACT_ALLOWED_HOSTS: listFromEnv.default([]),
  /** An S3-compatible store's URL for s3:// artifacts (e.g. http://minio:9000); unset = AWS S3. Credentials and region: the AWS SDK's standard chain. */
  S3_ENDPOINT_URL: z.string().url().optional(),
  ...outboundProxyEnv,
  /** Base URL of the Hugging Face Hub (or a mirror) that hf://org/name[@revision] models are imported from. */
  HF_ENDPOINT: z
    .string()
    .regex(/^https?:\/\/[^/?#]+(\/[^?#]*)?$/, 'must be an http(s):// base URL without query or fragment')
    .transform((url) => url.replace(/\/+$/, ''))
    .default('https://huggingface.co'),
  /** Hugging Face access token for private and gated repositories, sent as a Bearer token to HF_ENDPOINT only. */
  HF_TOKEN: z.string().min(1).optional(),
  /** Largest artifact fetched for preparation or accepted per uploaded file, in bytes (4 GiB). */
  REGISTRY_ARTIFACT_MAX_BYTES: integerFromEnv(1).default(4 * 1024 ** 3),
  /** Deadline of one artifact fetch during preparation, in milliseconds. */
  REGISTRY_ARTIFACT_FETCH_TIMEOUT_MS: millisecondsFromEnv(1).default(300_000),
  /** Base URL workers and gateways reach this registry at; uploaded artifacts' URIs start with it. */
  REGISTRY_PUBLIC_URL: z
    .string()
    .regex(/^https?:\/\/[^/?#]+(\/[^?#]*)?$/, 'must be an http(s):// base URL without query or fragment')
    .transform((url) => url.replace(/\/+$/, ''))
    .default('http://127.0.0.1:8081'),
  /** How often the outbox relay republishes config revisions not yet announced, in milliseconds. */
  REGISTRY_RELAY_INTERVAL_MS: millisecondsFromEnv(10).default(1000),
  /** Attempts per model-preparation job before the model is FAILED; a try that found the artifact cache full counts none, and is retried until space returns. */
  REGISTRY_PREPARATION_ATTEMPTS: integerFromEnv(1, 20).default(3),
  /** First retry delay of a preparation job; doubles per attempt, in milliseconds (after a full artifact cache: at least 1 s, at most 30 s). */
  REGISTRY_PREPARATION_BACKOFF_MS: millisecondsFromEnv(0).default(2000),
  /** Lock a preparation worker holds on its job, renewed while alive, in milliseconds (BullMQ lockDuration). */
  REGISTRY_PREPARATION_LOCK_MS: millisecondsFromEnv(100).default(30_000),
  /** How often dead workers' jobs are looked for and requeued, in milliseconds (BullMQ stalledInterval). */
  REGISTRY_PREPARATION_STALLED_INTERVAL_MS: millisecondsFromEnv(100).default(30_000),
  /** How often the registry looks for rollouts whose window ended (or whose candidate became ready), in ms. */
  REGISTRY_ROLLOUT_TICK_MS: millisecondsFromEnv(50, 60_000).default(1000),
  /** Apply pending migrations at start-up (standalone mode); otherwise run `npm run migrate`. */
  REGISTRY_MIGRATE_ON_START: booleanFromEnv.default(false),
  /** Log level. */
  REGISTRY_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Test hook: exit(1) right after a mutation commits, before it is announced. Never in production. */
  REGISTRY_TEST_CRASH_AFTER_COMMIT: booleanFromEnv.default(false),
  /**
   * Test hook: the preparation thread writes `<file>.held`, then blocks (as a slow onnxruntime
   * session creation would) until this file exists. Never in production.
   */
  REGISTRY_TEST_HOLD_PREPARATION_FILE: z.string().min(1).optional(),
  /** Test hook: hold each preparation job this long once PREPARING, in milliseconds. Never in production. */
  REGISTRY_TEST_PREPARE_DELAY_MS: millisecondsFromEnv(0).default(0),
});

export type RegistryConfig = z.infer<typeof registryConfigSchema>;
export type DatabaseConfig = z.infer<typeof databaseConfigSchema>;

/** Settings that act only through Redis: without it preparation and announcements run in-process. */
const WITHOUT_REDIS = 'preparation and announcements run in-process without Redis';
const IDLE_KEY_RULES: readonly IdleKeyRule[] = [
  REDIS_KEY_PREFIX_RULE,
  ['REGISTRY_PREPARATION_LOCK_MS', actsOnlyWith(['REDIS_URL'], `the BullMQ job lock; ${WITHOUT_REDIS}`)],
  [
    'REGISTRY_PREPARATION_STALLED_INTERVAL_MS',
    actsOnlyWith(['REDIS_URL'], `the BullMQ stalled-job check; ${WITHOUT_REDIS}`),
  ],
  [
    'REGISTRY_ROLLOUT_TICK_MS',
    actsOnlyWith(
      ['REDIS_URL'],
      'paces rollouts, which judge the numbers gateways report through Redis: without it none starts',
    ),
  ],
];

/** Parses the environment; throws listing every bad key by name (never its value). */
export function loadRegistryConfig(env: NodeJS.ProcessEnv = process.env): RegistryConfig {
  refuseIdleKeys(env, IDLE_KEY_RULES, 'registry');
  refuseLowercaseProxyEnv(env, 'registry');
  return parseEnv(registryConfigSchema, env, 'registry');
}

/** The database part of the environment only (the migration command). */
export function loadDatabaseConfig(env: NodeJS.ProcessEnv = process.env): DatabaseConfig {
  return parseEnv(databaseConfigSchema, env, 'database');
}

/** The env var names the registry reads (the Helm chart and compose file are checked against it). */
export const REGISTRY_ENV_KEYS = Object.keys(registryConfigSchema.shape);
