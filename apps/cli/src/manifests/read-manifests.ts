/**
 * The documents of a file given to `modelgate apply -f`: YAML (one document or several, `---`
 * between them) or JSON, each checked against its kind's schema (Model, Endpoint, Rollout) before anything
 * is applied, so a typo anywhere changes nothing. Kinds apply does not manage are refused by name.
 * Pure: no I/O.
 */
import { parseAllDocuments } from 'yaml';
import { UsageError } from '../cli-errors.js';
import { manifestProblems } from './manifest-issues.js';
import { type EndpointManifest, endpointManifestSchema } from './endpoint-manifest.js';
import { type ModelManifest, readModelManifest } from './model-manifest.js';
import { type RolloutManifest, readRolloutManifest } from './rollout-manifest.js';

/** One document of a file. */
export type Manifest = EndpointManifest | ModelManifest | RolloutManifest;

/** What other kinds are, and where they are managed instead. */
const OTHER_KINDS: Readonly<Record<string, string>> = {
  Key: 'serving API keys do not exist yet',
  Token: 'admin tokens are created and revoked with `modelgate token create|revoke`',
};

/**
 * The documents of `text` (read from `file`, named in errors), in file order. A document may also
 * be a list of them (what `get endpoints -o json|yaml` prints).
 */
export function readManifests(text: string, file: string): Manifest[] {
  const documents = parseAllDocuments(text);
  if (!Array.isArray(documents)) return [];
  const values: { value: unknown; where: string }[] = [];
  documents.forEach((document, index) => {
    const where = documents.length === 1 ? file : `${file} (document ${index + 1})`;
    const [error] = document.errors;
    if (error) throw new UsageError(`${where}: not YAML or JSON: ${error.message.split('\n')[0] ?? ''}`);
    const value: unknown = document.toJS();
    if (Array.isArray(value))
      value.forEach((item, at) => values.push({ value: item, where: `${where} item ${at + 1}` }));
    else if (value !== null && value !== undefined) values.push({ value, where });
  });
  const manifests: Manifest[] = [];
  const seen = new Set<string>();
  for (const { value, where } of values) {
    const manifest = readManifest(value, where);
    const key =
      manifest.kind === 'Endpoint'
        ? `endpoint ${manifest.name}`
        : manifest.kind === 'Rollout'
          ? `a rollout of ${manifest.endpoint}`
          : manifest.version === undefined
            ? undefined
            : `model ${manifest.request.name}:${manifest.version}`;
    if (key !== undefined && seen.has(key)) throw new UsageError(`${where}: ${key} is in the file twice`);
    if (key !== undefined) seen.add(key);
    manifests.push(manifest);
  }
  return manifests;
}

function readManifest(value: unknown, where: string): Manifest {
  const kind = (value as { kind?: unknown } | null)?.kind;
  if (typeof kind === 'string' && kind in OTHER_KINDS) {
    throw new UsageError(`${where}: kind ${kind} is not applied from files: ${OTHER_KINDS[kind] ?? ''}`);
  }
  if (kind === 'Model') return readModelManifest(value as Record<string, unknown>, where);
  if (kind === 'Rollout') return readRolloutManifest(value as Record<string, unknown>, where);
  if (kind !== 'Endpoint') {
    throw new UsageError(
      `${where}: kind must be Model, Endpoint or Rollout (got ${JSON.stringify(kind ?? null)})`,
    );
  }
  const parsed = endpointManifestSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new UsageError(`${where}: ${manifestProblems(parsed.error)}`);
}
