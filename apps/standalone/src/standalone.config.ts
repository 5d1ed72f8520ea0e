import { resolve } from 'node:path';
import {
  booleanFromEnv,
  integerFromEnv,
  millisecondsFromEnv,
  tokenSecretFromEnv,
} from '@modelgate/contracts';
import { z } from 'zod';

const port = integerFromEnv(1, 65535);

/**
 * Standalone settings; the only place the launcher reads `process.env`. The apps read their own
 * variables themselves (the whole environment is passed on); the launcher reads the few it must
 * know too, to dial the apps and to print where they are.
 */
export const standaloneConfigSchema = z.object({
  /** Directory holding the embedded database, tokens, artifacts and caches. */
  MODELGATE_HOME: z
    .string()
    .min(1)
    .default('.modelgate')
    .transform((dir) => resolve(dir)),
  /**
   * Co-located: the worker runs inside the gateway's process (GATEWAY_LOCAL_WORKER), which calls it
   * with no gRPC hop; it still serves gRPC on WORKER_GRPC_PORT. false runs it as its own process.
   */
  MODELGATE_COLOCATED: booleanFromEnv.default(true),
  /** Register the demo model and endpoint `demo` at start-up (kept if already there). */
  MODELGATE_DEMO: booleanFromEnv.default(true),
  /** How long start-up may take before giving up, in ms (the first start creates the database). */
  MODELGATE_START_TIMEOUT_MS: millisecondsFromEnv(1000).default(300_000),
  /** External Postgres; when unset an embedded PGlite under MODELGATE_HOME/pgdata is served. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// connection string')
    .optional(),
  /** Redis; when unset config sync is by polling and async inference answers 503. */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  /** The first admin token; when unset one is generated into MODELGATE_HOME/admin-token. */
  REGISTRY_BOOTSTRAP_TOKEN: tokenSecretFromEnv(16).optional(),
  /** Interface of the gateway (the apps' own default is 0.0.0.0; standalone keeps to this machine). */
  GATEWAY_HOST: z.string().min(1).default('127.0.0.1'),
  /** Gateway HTTP port. */
  GATEWAY_PORT: port.default(8080),
  /** The gateway's Open Inference Protocol gRPC face (text to endpoints, tensors to models). */
  GATEWAY_GRPC_PORT: port.default(8083),
  /** Interface of the registry. */
  REGISTRY_HOST: z.string().min(1).default('127.0.0.1'),
  /** Registry HTTP port. */
  REGISTRY_PORT: port.default(8081),
  /** Interface of the worker's gRPC and HTTP servers. */
  WORKER_HOST: z.string().min(1).default('127.0.0.1'),
  /** Worker gRPC port (Open Inference Protocol v2). */
  WORKER_GRPC_PORT: port.default(8001),
  /** Worker HTTP port (metrics and probes). */
  WORKER_HTTP_PORT: port.default(8002),
  /** The worker's group; the gateway is told the worker's address under this name. */
  WORKER_GROUP: z.string().min(1).default('default'),
});

/**
 * Variables of the apps that the launcher sets itself, each with why: a user's value would be
 * overridden without a word, so it is refused (a value equal to the launcher's is fine).
 */
function launcherDecided(env: NodeJS.ProcessEnv): string[] {
  const decided: [string, string, string?][] = [
    ['REGISTRY_URL', 'the launcher points the worker and the gateway at its own registry'],
    ['REGISTRY_TOKEN', 'the launcher gives the worker and the gateway a viewer token of their own'],
    ['WORKER_CONFIG_FILE', 'the worker follows the registry here, never a config file'],
    ['GATEWAY_CONFIG_FILE', 'the gateway follows the registry here, never a config file'],
    ['REGISTRY_MIGRATE_ON_START', 'the launcher always migrates the registry database at start-up', 'true'],
    [
      'GATEWAY_LOCAL_WORKER',
      'the launcher co-locates the worker as MODELGATE_COLOCATED says (set that instead)',
    ],
    ...(env.DATABASE_URL === undefined
      ? ([
          ['DATABASE_SCHEMA', 'the embedded database keeps everything in its public schema', 'public'],
          [
            'DATABASE_POOL_SIZE',
            'the embedded database serves one connection (give DATABASE_URL for more)',
            '1',
          ],
        ] as [string, string, string][])
      : []),
  ];
  return decided
    .filter(([key, , allowed]) => env[key] !== undefined && env[key] !== allowed)
    .map(([key, why]) => `${key}: ${why}; unset it`);
}

export type StandaloneConfig = z.infer<typeof standaloneConfigSchema>;

/** Parses the environment; throws listing every bad key by name (never its value). */
export function loadStandaloneConfig(env: NodeJS.ProcessEnv = process.env): StandaloneConfig {
  const parsed = standaloneConfigSchema.safeParse(env);
  const keys = [
    ...(parsed.error?.issues ?? []).map((issue) => `${issue.path.join('.')}: ${issue.message}`),
    ...launcherDecided(env),
  ];
  if (!parsed.success || keys.length > 0) {
    throw new Error(`invalid standalone configuration:\n  ${keys.join('\n  ')}`);
  }
  return parsed.data;
}
