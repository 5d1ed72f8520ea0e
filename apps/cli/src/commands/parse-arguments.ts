import { type ModelKey } from '@modelgate/admin-client';
import {
  EXECUTION_PROVIDERS,
  type ExecutionProvider,
  parseModelId,
  RESOURCE_NAME_PATTERN,
  ROUTE_ROLES,
  type RouteRequest,
  type RouteRole,
  type VersionPolicy,
} from '@modelgate/contracts';
import { baseUrlSchema, registryUrlSchema } from '../cli.config.js';
import { UsageError } from '../cli-errors.js';
import { DECIMAL } from './rollout-arguments.js';

const INTEGER = /^[0-9]+$/;

/** `sst2:3` → `{name: 'sst2', version: '3'}`; a UsageError saying what a model id looks like otherwise. */
export function parseModelRef(text: string): ModelKey {
  const parsed = parseModelId(text);
  if (parsed === undefined) {
    throw new UsageError(
      `'${text}' is not a model id: expected name:version, e.g. sst2:1 (lowercase name, positive integer version)`,
    );
  }
  return parsed;
}

/**
 * One route of `route set`: `name:version=weight`, optionally `:role` after the weight
 * (`sst2:2=10:canary`, `sst2:3=0:shadow`). The weight is a percentage, an integer 0-100. Without
 * a role the registry decides: the heaviest route becomes primary, the others canaries.
 */
export function parseRouteSpec(text: string): RouteRequest {
  const equals = text.lastIndexOf('=');
  if (equals <= 0) {
    throw new UsageError(`route '${text}' needs a weight: name:version=weight, e.g. sst2:2=10`);
  }
  const modelText = text.slice(0, equals);
  const [weightText = '', roleText, ...rest] = text.slice(equals + 1).split(':');
  if (parseModelId(modelText) === undefined) {
    throw new UsageError(`route '${text}': '${modelText}' is not a model id name:version, e.g. sst2:2`);
  }
  if (!INTEGER.test(weightText) || Number(weightText) > 100) {
    throw new UsageError(
      `route '${text}': weight '${weightText}' must be an integer percentage from 0 to 100`,
    );
  }
  if (rest.length > 0 || (roleText !== undefined && !isRouteRole(roleText))) {
    throw new UsageError(
      `route '${text}': role '${[roleText, ...rest].join(':')}' must be one of ${ROUTE_ROLES.join(', ')}`,
    );
  }
  return {
    model: modelText,
    weight: Number(weightText),
    ...(roleText === undefined ? {} : { role: roleText }),
  };
}

function isRouteRole(text: string): text is RouteRole {
  return (ROUTE_ROLES as readonly string[]).includes(text);
}

/**
 * A model, endpoint, token or worker-group name, checked before anything is sent (an upload
 * would otherwise carry the whole model before the registry refused the name).
 */
export function parseResourceName(text: string): string {
  if (!RESOURCE_NAME_PATTERN.test(text)) {
    throw new UsageError(
      `'${text}' must be 1-63 lowercase letters, digits or dashes, starting with a letter or digit`,
    );
  }
  return text;
}

/** A positive integer option value (1 or more, safe range). */
export function parsePositiveInt(text: string): number {
  const value = parseInteger(text);
  if (value < 1) throw new UsageError(`'${text}' must be a positive integer`);
  return value;
}

/** A non-negative integer option value (0 or more, safe range). */
export function parseNonNegativeInt(text: string): number {
  return parseInteger(text);
}

/** A comma-separated list of batch sizes, e.g. 4,8 (the registry checks them against maxBatchSize). */
export function parseBatchSizes(text: string): number[] {
  const parts = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (parts.length === 0) throw new UsageError(`'${text}' lists no batch size; give e.g. 4,8`);
  return parts.map(parsePositiveInt);
}

/** A padding ratio option value: a number of 1 or more, e.g. 1.15. */
export function parsePaddingRatio(text: string): number {
  const trimmed = text.trim();
  const value = DECIMAL.test(trimmed) ? Number(trimmed) : NaN;
  if (!Number.isFinite(value) || value < 1 || value > 1_000_000) {
    throw new UsageError(`'${text}' must be a number from 1 to 1000000, e.g. 1.15`);
  }
  return value;
}

function parseInteger(text: string): number {
  const trimmed = text.trim();
  if (!INTEGER.test(trimmed) || !Number.isSafeInteger(Number(trimmed))) {
    throw new UsageError(`'${text}' must be a whole number, e.g. 8`);
  }
  return Number(trimmed);
}

/** `tensorrt,cuda,cpu` → providers in order of preference; each known, none twice. */
export function parseExecutionProviders(text: string): ExecutionProvider[] {
  const names = text
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (names.length === 0) {
    throw new UsageError(
      `'${text}' lists no execution provider; use some of ${EXECUTION_PROVIDERS.join(', ')}`,
    );
  }
  const unknown = names.filter((name) => !(EXECUTION_PROVIDERS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new UsageError(
      `unknown execution provider ${unknown.map((name) => `'${name}'`).join(', ')}; use some of ${EXECUTION_PROVIDERS.join(', ')}`,
    );
  }
  const repeated = names.filter((name, index) => names.indexOf(name) !== index);
  if (repeated.length > 0) throw new UsageError(`execution provider '${repeated[0]}' is listed twice`);
  return names as ExecutionProvider[];
}

/** A `--registry` value: an http(s) base URL. */
export function parseRegistryUrl(text: string): string {
  return parseUrl(registryUrlSchema, text);
}

const gatewayUrlSchema = baseUrlSchema('http://127.0.0.1:8080');

/** `perf --gateway`: a gateway's http(s) base URL, trailing slashes dropped. */
export function parseGatewayUrl(text: string): string {
  return parseUrl(gatewayUrlSchema, text);
}

function parseUrl(schema: ReturnType<typeof baseUrlSchema>, text: string): string {
  const parsed = schema.safeParse(text);
  if (!parsed.success) throw new UsageError(parsed.error.issues[0]?.message ?? 'must be an http(s):// URL');
  return parsed.data;
}

/**
 * A version policy as `model policy` takes it: `all`, `latest` or `latest:N`, `specific:1,3`, or
 * `default` (undefined: back to latest 1). A UsageError naming the accepted forms otherwise.
 */
export function parseVersionPolicy(text: string): VersionPolicy | undefined {
  const forms = 'all, latest[:N], specific:V1,V2,... or default';
  const [kind = '', argument, ...rest] = text.split(':');
  if (rest.length > 0) throw new UsageError(`version policy '${text}': expected one of ${forms}`);
  const count = (value: string, what: string): number => {
    if (!INTEGER.test(value) || Number(value) < 1 || Number(value) > 999_999_999) {
      throw new UsageError(`version policy '${text}': ${what} must be a positive integer, got '${value}'`);
    }
    return Number(value);
  };
  if (kind === 'default' && argument === undefined) return undefined;
  if (kind === 'all' && argument === undefined) return { kind: 'all' };
  if (kind === 'latest') return { kind: 'latest', count: argument === undefined ? 1 : count(argument, 'N') };
  if (kind === 'specific' && argument !== undefined) {
    const versions = argument.split(',').map((value) => count(value, 'each version'));
    if (new Set(versions).size !== versions.length) {
      throw new UsageError(`version policy '${text}': a version is listed twice`);
    }
    return { kind: 'specific', versions };
  }
  throw new UsageError(`version policy '${text}': expected one of ${forms}`);
}
