import { z } from 'zod';

const TRUE_FLAGS = ['true', '1', 'yes'] as const;
const FALSE_FLAGS = ['false', '0', 'no'] as const;

/** An environment flag: true/false, 1/0 or yes/no. */
export const booleanFromEnv = z
  .enum([...TRUE_FLAGS, ...FALSE_FLAGS])
  .transform((value) => (TRUE_FLAGS as readonly string[]).includes(value));

/** A comma-separated environment list; blanks dropped. */
export const listFromEnv = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0),
);

/**
 * The longest delay a Node timer keeps: a longer one fires after 1 ms (Node's documented
 * behaviour), so a drain timeout or an interval beyond it would act at once. About 24.8 days.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * A whole number from the environment, from `min` to `max`: decimal digits only. An empty value is
 * refused: read as a number it was 0 (`GATEWAY_PORT=`, from a compose file's unset `${VAR}`, listened
 * on a random port). Leave a variable out for its default.
 */
export function integerFromEnv(min: number, max: number = Number.MAX_SAFE_INTEGER) {
  return z
    .string()
    .trim()
    .regex(/^-?\d+$/, 'must be a whole number in decimal digits (leave it out for the default)')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
}

/** A duration in milliseconds from the environment: an integer from `min` to `max` (at most {@link MAX_TIMER_MS}). */
export function millisecondsFromEnv(min: number, max: number = MAX_TIMER_MS) {
  return integerFromEnv(min, Math.min(max, MAX_TIMER_MS));
}

/**
 * Refuses keys an app no longer reads, saying where their job went, rather than ignoring them:
 * `retired` maps each key to that explanation.
 */
export function refuseRetiredKeys(
  env: NodeJS.ProcessEnv,
  retired: Readonly<Record<string, string>>,
  app: string,
): void {
  const set = Object.keys(retired).filter((key) => env[key] !== undefined);
  if (set.length > 0) {
    throw new Error(
      `invalid ${app} configuration:\n  ${set.map((key) => `${key} ${retired[key]}`).join('\n  ')}`,
    );
  }
}

/**
 * Parses an app's environment with its schema; throws listing every bad key by name and
 * reason, never a value (values may be secrets).
 */
export function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv, app: string): z.output<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const keys = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`invalid ${app} configuration:\n  ${keys.join('\n  ')}`);
  }
  return parsed.data;
}

/**
 * A key that does nothing in some configurations, and a check that says why it would do nothing
 * in this one (or undefined when it acts).
 */
export type IdleKeyRule = readonly [key: string, idle: (env: NodeJS.ProcessEnv) => string | undefined];

/** An IdleKeyRule check: the key acts only beside one of `keys`. */
export function actsOnlyWith(keys: readonly string[], what: string): IdleKeyRule[1] {
  return (env) =>
    keys.some((key) => env[key] !== undefined)
      ? undefined
      : `${what}: set ${keys.join(' or ')}, or leave it out`;
}

/** REDIS_KEY_PREFIX, which every app reads and which names only Redis keys and channels. */
export const REDIS_KEY_PREFIX_RULE: IdleKeyRule = [
  'REDIS_KEY_PREFIX',
  actsOnlyWith(['REDIS_URL'], 'prefixes Redis keys and channels only'),
];

/** A node's REGISTRY_TOKEN, which authenticates it to REGISTRY_URL only. */
export const REGISTRY_TOKEN_RULE: IdleKeyRule = [
  'REGISTRY_TOKEN',
  actsOnlyWith(
    ['REGISTRY_URL'],
    'is sent only to REGISTRY_URL (an artifact URI on a registry carries a token as its user info: http://x:<token>@registry/...)',
  ),
];

/**
 * A node's `<APP>_ARTIFACT_ALLOWED_HOSTS`, which exempts hosts of http(s) artifact URIs from the
 * private-address guard: idle while `<APP>_ALLOW_HTTP_ARTIFACTS` turns those URIs off.
 */
export function artifactAllowedHostsRule(app: 'GATEWAY' | 'WORKER'): IdleKeyRule {
  const allowHttp = `${app}_ALLOW_HTTP_ARTIFACTS`;
  return [
    `${app}_ARTIFACT_ALLOWED_HOSTS`,
    (env) =>
      (FALSE_FLAGS as readonly (string | undefined)[]).includes(env[allowHttp])
        ? `exempts hosts of http(s) artifact URIs from the private-address guard, and ${allowHttp} turns those URIs off: leave one of them out`
        : undefined,
  ];
}

/** The config file check of a node: a file beside REGISTRY_URL is not read (the registry's config wins). */
export const notBesideRegistryUrl: IdleKeyRule[1] = (env) =>
  env.REGISTRY_URL === undefined
    ? undefined
    : "is not read while REGISTRY_URL is set (the registry's config wins): set one of them";

/**
 * Refuses keys set where they would do nothing (stored and ignored is a defect), each with why,
 * rather than starting as if they acted.
 */
export function refuseIdleKeys(env: NodeJS.ProcessEnv, rules: readonly IdleKeyRule[], app: string): void {
  const idle = rules.flatMap(([key, check]) => {
    const why = env[key] === undefined ? undefined : check(env);
    return why === undefined ? [] : [`${key}: ${why}`];
  });
  if (idle.length > 0) throw new Error(`invalid ${app} configuration:\n  ${idle.join('\n  ')}`);
}

const proxyUrl = z
  .string()
  .refine((value) => {
    try {
      return new URL(value.includes('://') ? value : `http://${value}`).protocol === 'http:';
    } catch {
      return false;
    }
  }, 'must be an http:// proxy URL such as http://proxy:3128 (the proxy is spoken to in plain HTTP; https targets go through CONNECT tunnels)')
  .optional();

/**
 * The forward proxies of a node's outbound fetches (http(s) and s3 artifacts, the Hugging Face
 * Hub), as curl names them: HTTPS_PROXY for https:// targets, HTTP_PROXY for http://, NO_PROXY
 * the hosts reached directly. The uppercase names: lowercase ones are refused unless they match.
 */
export const outboundProxyEnv = {
  /** Forward proxy of https:// targets (a CONNECT tunnel to each), e.g. http://proxy:3128. */
  HTTPS_PROXY: proxyUrl,
  /** Forward proxy of http:// targets (a CONNECT tunnel to each), e.g. http://proxy:3128. */
  HTTP_PROXY: proxyUrl,
  /** Comma-separated hosts (and their subdomains), addresses or host:port reached without a proxy; `*`: none proxied. */
  NO_PROXY: z.string().optional(),
};

/**
 * Refuses http_proxy, https_proxy and no_proxy unless they equal their uppercase names, which
 * are the ones read: a lowercase-only proxy would otherwise be set and ignored.
 */
export function refuseLowercaseProxyEnv(env: NodeJS.ProcessEnv, app: string): void {
  const stray = ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY'].filter((name) => {
    const lower = env[name.toLowerCase()];
    return lower !== undefined && lower !== env[name];
  });
  if (stray.length === 0) return;
  throw new Error(
    `invalid ${app} configuration:\n  ${stray
      .map(
        (name) =>
          `${name.toLowerCase()}: set ${name} (uppercase), which is the one read, to the same value or leave it out`,
      )
      .join('\n  ')}`,
  );
}
