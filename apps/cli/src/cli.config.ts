import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { UsageError } from './cli-errors.js';

/** The registry the CLI talks to when neither `--registry` nor MODELGATE_REGISTRY says otherwise (DESIGN §4). */
export const DEFAULT_REGISTRY_URL = 'http://127.0.0.1:8081';

/** An http(s) base URL without query or fragment that parses (a port of 1-65535, a closed [IPv6]); trailing slashes dropped. */
export const baseUrlSchema = (example: string) =>
  z
    .string()
    .regex(/^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/, `must be an http:// or https:// URL, e.g. ${example}`)
    .refine((url) => URL.canParse(url), `is not a valid URL (check the host and port), e.g. ${example}`)
    .transform((url) => url.replace(/\/+$/, ''));

/** The registry's base URL (`--registry`, MODELGATE_REGISTRY). */
export const registryUrlSchema = baseUrlSchema(DEFAULT_REGISTRY_URL);

/** An unset variable and an empty one mean the same: not given. */
const emptyAsUnset = (value: unknown): unknown => (value === '' ? undefined : value);

/** CLI settings from the environment; the only place the CLI reads `process.env`. */
export const cliConfigSchema = z.object({
  /** Base URL of the registry's admin API; `--registry` and `--context` override it, it overrides the current context's. */
  MODELGATE_REGISTRY: z.preprocess(emptyAsUnset, registryUrlSchema.optional()),
  /** Bearer token for the registry (admin for changes, viewer suffices for reads). */
  MODELGATE_TOKEN: z.preprocess(emptyAsUnset, z.string().min(1).optional()),
  /** The contexts file (contexts/cli-contexts.ts); default $XDG_CONFIG_HOME/modelgate/config.yaml, else ~/.config/modelgate/config.yaml. */
  MODELGATE_CONFIG: z.preprocess(emptyAsUnset, z.string().min(1).optional()),
  XDG_CONFIG_HOME: z.preprocess(emptyAsUnset, z.string().min(1).optional()),
});

/** Parsed CLI settings. */
export type CliConfig = z.output<typeof cliConfigSchema>;

/**
 * Parses the environment; throws a UsageError naming every bad variable (never its value).
 * `registryFlag`: `--registry` was given, so MODELGATE_REGISTRY is neither read nor checked.
 */
export function loadCliConfig(
  options: { registryFlag?: boolean } = {},
  env: NodeJS.ProcessEnv = process.env,
): CliConfig {
  const parsed = cliConfigSchema.safeParse({
    MODELGATE_REGISTRY: options.registryFlag === true ? undefined : env.MODELGATE_REGISTRY,
    MODELGATE_TOKEN: env.MODELGATE_TOKEN,
    MODELGATE_CONFIG: env.MODELGATE_CONFIG,
    XDG_CONFIG_HOME: env.XDG_CONFIG_HOME,
  });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new UsageError(`invalid environment: ${problems.join('; ')}`);
  }
  return parsed.data;
}

/** The contexts file this environment names. */
export function contextsFilePath(config: Pick<CliConfig, 'MODELGATE_CONFIG' | 'XDG_CONFIG_HOME'>): string {
  return (
    config.MODELGATE_CONFIG ??
    join(config.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'modelgate', 'config.yaml')
  );
}
