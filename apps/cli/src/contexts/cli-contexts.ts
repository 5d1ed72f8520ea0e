/**
 * Several registries from one CLI, as kubeconfig does for clusters: a config file names contexts
 * (a registry URL and, optionally, its token) and the current one; `--context NAME` picks another
 * for one command. Which registry and token a command uses:
 *   registry: --registry, else --context's, else MODELGATE_REGISTRY, else the current context's,
 *             else the default;
 *   token:    --context's, else MODELGATE_TOKEN, else the current context's.
 * An explicit --context wins over the environment; the file's current context only fills what the
 * environment leaves unset. Pure: the file's text comes in, the new text goes out.
 */
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { z } from 'zod';
import { registryUrlSchema } from '../cli.config.js';
import { UsageError } from '../cli-errors.js';

const contextNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'must be letters, digits, . _ or -, at most 63');

/** One context: a registry and, optionally, the token for it. */
export const cliContextSchema = z.strictObject({
  registry: registryUrlSchema,
  token: z.string().min(1).optional(),
});

/** The config file. */
export const cliContextsFileSchema = z.strictObject({
  'current-context': contextNameSchema.optional(),
  contexts: z.record(contextNameSchema, cliContextSchema).default({}),
});

export type CliContexts = z.output<typeof cliContextsFileSchema>;
export type CliContextEntry = z.output<typeof cliContextSchema>;

/** The file's contexts; an empty file has none. A usage error naming the file and the field otherwise. */
export function parseContextsFile(text: string | undefined, file: string): CliContexts {
  if (text === undefined || text.trim() === '') return { contexts: {} };
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    throw new UsageError(`${file}: not YAML (${(error as Error).message.split('\n')[0] ?? ''})`);
  }
  const parsed = cliContextsFileSchema.safeParse(value ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) =>
      issue.code === 'unrecognized_keys'
        ? `${[...issue.path, ...issue.keys].join('.')}: is not a known field`
        : `${issue.path.join('.') || 'file'}: ${issue.message}`,
    );
    throw new UsageError(`${file}: ${problems.join('; ')}`);
  }
  const contexts = parsed.data;
  const current = contexts['current-context'];
  if (current !== undefined && !(current in contexts.contexts)) {
    throw new UsageError(`${file}: current-context '${current}' is not one of its contexts`);
  }
  return contexts;
}

/** The context named `name`; a usage error listing the file's contexts otherwise. */
export function requireContext(
  contexts: CliContexts,
  name: string,
  file: string,
  asked = `--context ${name}`,
): CliContextEntry {
  const entry = contexts.contexts[name];
  if (entry) return entry;
  const known = Object.keys(contexts.contexts);
  throw new UsageError(
    `${asked}: ${file} has ${known.length === 0 ? 'no contexts' : `the contexts ${known.join(', ')}`}` +
      ' (add one: modelgate config set-context NAME --registry-url URL)',
  );
}

/** What the environment and flags say, before the contexts fill in. */
export interface ConnectionInputs {
  registryFlag?: string;
  contextFlag?: string;
  envRegistry?: string;
  envToken?: string;
  defaultRegistry: string;
}

/** The registry and token a command uses (see the module's comment for the order). */
export function resolveConnection(
  inputs: ConnectionInputs,
  contexts: CliContexts,
  file: string,
): { registry: string; token?: string } {
  const explicit =
    inputs.contextFlag === undefined ? undefined : requireContext(contexts, inputs.contextFlag, file);
  const currentName = contexts['current-context'];
  const current = currentName === undefined ? undefined : contexts.contexts[currentName];
  const registry =
    inputs.registryFlag ??
    explicit?.registry ??
    inputs.envRegistry ??
    current?.registry ??
    inputs.defaultRegistry;
  const token = explicit?.token ?? inputs.envToken ?? current?.token;
  return { registry, ...(token === undefined ? {} : { token }) };
}

/** The file's text with `name` set to `entry` (added or replaced). */
export function withContext(contexts: CliContexts, name: string, entry: CliContextEntry): string {
  contextNameSchema.parse(name);
  return stringifyYaml({ ...contexts, contexts: { ...contexts.contexts, [name]: entry } });
}

/** The file's text with `name` as the current context. */
export function withCurrentContext(contexts: CliContexts, name: string, file: string): string {
  requireContext(contexts, name, file, `use-context ${name}`);
  return stringifyYaml({ 'current-context': name, contexts: contexts.contexts });
}
