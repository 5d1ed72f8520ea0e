/**
 * Model versions kept in files: the `kind: Model` document `modelgate get model NAME[:VERSION]`
 * writes and `modelgate apply -f` reads. A version is immutable, so applying one registers it when
 * the registry has no version that matches it (same task, files and the settings the document
 * gives), and otherwise changes nothing; a document naming a version the registry holds with
 * other files is refused. The document is POST /v1/models's body with `kind`. Pure: no I/O.
 */
import { type ModelView, type RegisterModelRequest, registerModelSchema } from '@modelgate/contracts';
import { UsageError } from '../cli-errors.js';
import { manifestProblems } from './manifest-issues.js';

/** One `kind: Model` document: the registration request as the file gives it. */
export interface ModelManifest {
  kind: 'Model';
  request: RegisterModelRequest;
  /** The version, when the document names one. */
  version?: string;
}

/** A `kind: Model` document, checked as the registry would check the registration. */
export function readModelManifest(value: Record<string, unknown>, where: string): ModelManifest {
  const { kind: _kind, ...request } = value;
  const parsed = registerModelSchema.safeParse(request);
  if (!parsed.success) {
    throw new UsageError(`${where}: ${manifestProblems(parsed.error)}`);
  }
  return {
    kind: 'Model',
    request: request as RegisterModelRequest,
    ...(parsed.data.version === undefined ? {} : { version: String(parsed.data.version) }),
  };
}

/** The document of `view`: what `get model` prints, and `apply` reads back as "no change". */
export function modelManifest(view: ModelView): Record<string, unknown> {
  return {
    kind: 'Model',
    name: view.name,
    version: view.version,
    task: view.task,
    workerGroup: view.workerGroup,
    ...(view.source === null ? {} : { source: view.source }),
    ...(view.source !== null || view.artifact === null ? {} : { artifact: view.artifact }),
    ...(view.encoder === null || view.source !== null ? {} : { encoder: view.encoder }),
    ...(view.externalData.length === 0 || view.source !== null ? {} : { externalData: view.externalData }),
    ...(view.tokenizer === null || view.source !== null ? {} : { tokenizer: view.tokenizer }),
    ...(view.labels === null ? {} : { labels: view.labels }),
    batching: view.batching,
    runtime: view.runtime,
  };
}

/** What applying one model document does. */
export interface ModelPlan {
  name: string;
  action: 'create' | 'unchanged';
  /** create: the registration; unchanged: the version that matches. */
  register?: RegisterModelRequest;
  version?: string;
  changes: string[];
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Each key `given` sets has the value `held` has. */
function sameKeys(given: object | undefined, held: object | null | undefined): boolean {
  if (given === undefined) return true;
  return Object.entries(given).every(([key, value]) =>
    same(value, (held as Record<string, unknown> | null)?.[key]),
  );
}

/** Whether the registered version `view` is what the document registers. */
function matches(
  request: RegisterModelRequest,
  view: ModelView,
  canonicalSource: string | undefined,
): boolean {
  const ref = (
    given: { uri: string; sha256?: string } | undefined,
    held: { uri: string; sha256: string } | null,
  ) =>
    given === undefined ||
    (held !== null && given.uri === held.uri && (given.sha256 === undefined || given.sha256 === held.sha256));
  return (
    view.task === request.task &&
    (request.workerGroup === undefined || request.workerGroup === view.workerGroup) &&
    (canonicalSource === undefined || view.source === canonicalSource) &&
    ref(request.artifact, view.artifact) &&
    ref(request.encoder, view.encoder) &&
    ref(request.tokenizer, view.tokenizer) &&
    (request.labels === undefined || same(request.labels, view.labels)) &&
    (request.externalData === undefined ||
      same(
        request.externalData.map((d) => d.name),
        view.externalData.map((d) => d.name),
      )) &&
    sameKeys(request.batching, view.batching) &&
    sameKeys(request.runtime, view.runtime)
  );
}

/** The plan that makes the registry hold the document's version, given the name's versions. */
export function planModel(manifest: ModelManifest, versions: readonly ModelView[]): ModelPlan {
  const { request } = manifest;
  const name = request.name;
  const parsed = registerModelSchema.parse(request);
  const source = parsed.source;
  if (manifest.version !== undefined) {
    const held = versions.find((view) => view.version === manifest.version);
    if (held === undefined) {
      return { name, action: 'create', register: request, changes: [`register ${name}:${manifest.version}`] };
    }
    if (!matches(request, held, source)) {
      throw new UsageError(
        `model ${name}:${manifest.version} is registered with other files or settings; versions cannot change: ` +
          'leave version out of the document to register the next one',
      );
    }
    return { name, action: 'unchanged', version: held.version, changes: [] };
  }
  const held = versions.find((view) => view.status !== 'FAILED' && matches(request, view, source));
  if (held) return { name, action: 'unchanged', version: held.version, changes: [] };
  return { name, action: 'create', register: request, changes: [`register the next version of ${name}`] };
}
