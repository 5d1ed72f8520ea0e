import {
  type ConfigSnapshot,
  type EndpointSpec,
  type ModelSpec,
  type VersionPolicy,
  DEFAULT_VERSION_POLICY,
  ErrorCode,
  ModelgateError,
  describeVersionPolicy,
  selectLoadedVersions,
} from '@modelgate/contracts';
import { type CaptionDecoding } from '@modelgate/generation';
import { TEXT_INPUT_NAMES, type TextTokenizer } from '@modelgate/processing';
import { type CaptionModelFiles, type ImageModelFiles } from './tokenizer-loader.js';

/** How a table gets each model's preprocessing: a tokenizer, or an image model's processor. */
export interface PreprocessingLoader {
  /** The tokenizer of a text model. */
  load(spec: ModelSpec): Promise<TextTokenizer>;
  /** The preprocessor_config.json (and config.json) of an image-classification model. */
  loadImage(spec: ModelSpec): Promise<ImageModelFiles>;
  /** The image processor, tokenizer and decoder facts of an image-to-text model. */
  loadCaptioner(spec: ModelSpec): Promise<CaptionModelFiles>;
}

/** A model as the gateway serves it: its spec, tokenizer and the inputs to build. */
export interface ServableModel {
  readonly spec: ModelSpec;
  /** Absent for `raw` models, which take tensors, and image-classification models. */
  readonly tokenizer?: TextTokenizer;
  /** image-classification (instead of a tokenizer) and image-to-text: the image preprocessing. */
  readonly image?: ImageModelFiles;
  /** image-to-text: how its decoder starts and stops (config.json, generation_config.json). */
  readonly caption?: CaptionDecoding;
  /** The model's declared input names (a DistilBERT export has no token_type_ids). */
  readonly inputNames: readonly string[];
  /** Labels: the spec's, else config.json's id2label. */
  readonly labels?: readonly string[];
}

/**
 * Everything a request needs from one config revision. Built completely before it is swapped in,
 * and never mutated after: a request sees one whole table, old or new, never a mix.
 */
export interface EndpointTable {
  readonly revision: number;
  readonly endpoints: ReadonlyMap<string, EndpointSpec>;
  readonly models: ReadonlyMap<string, ServableModel>;
  /** Models by id that failed to become servable here (tokenizer fetch), with why. */
  readonly unservable: ReadonlyMap<string, string>;
  /** READY versions the version policy leaves unloaded (workers do not serve them), by id. */
  readonly unloaded: ReadonlyMap<string, ModelSpec>;
  /** Each model name's version policy, where one is set. */
  readonly versionPolicies: ReadonlyMap<string, VersionPolicy>;
}

/** Builds the table for `snapshot`; `loader` loads (or reuses) each model's tokenizer or image processor. */
export async function buildEndpointTable(
  snapshot: ConfigSnapshot,
  loader: PreprocessingLoader,
): Promise<EndpointTable> {
  const models = new Map<string, ServableModel>();
  const unservable = new Map<string, string>();
  const selected = selectLoadedVersions(snapshot);
  const unloaded = new Map(snapshot.models.filter((spec) => !selected.has(spec.id)).map((s) => [s.id, s]));
  await Promise.all(
    snapshot.models
      .filter((spec) => selected.has(spec.id))
      .map(async (spec) => {
        try {
          models.set(spec.id, await loadServable(spec, loader));
        } catch (error) {
          unservable.set(spec.id, errorMessage(error));
        }
      }),
  );
  return {
    revision: snapshot.revision,
    endpoints: new Map(snapshot.endpoints.map((endpoint) => [endpoint.name, endpoint])),
    models,
    unservable,
    unloaded,
    versionPolicies: new Map(snapshot.versionPolicies.map((entry) => [entry.model, entry.policy])),
  };
}

/**
 * What the gateway needs to serve `spec`: its tokenizer (an image model: its preprocessor_config.json
 * and config.json; an image-to-text model: both, and its decoder's start and end ids; a raw model:
 * nothing), input names and labels.
 */
export async function loadServable(spec: ModelSpec, loader: PreprocessingLoader): Promise<ServableModel> {
  if (spec.task === 'image-to-text') {
    const { tokenizer, image, decoding } = await loader.loadCaptioner(spec);
    return { spec, tokenizer, image, caption: decoding, inputNames: spec.inputs.map((input) => input.name) };
  }
  if (spec.task === 'image-classification') {
    const image = await loader.loadImage(spec);
    const labels = spec.labels?.length ? spec.labels : image.modelConfig.labels;
    return {
      spec,
      image,
      inputNames: spec.inputs.map((input) => input.name),
      ...(labels ? { labels } : {}),
    };
  }
  const tokenizer = spec.task === 'raw' ? undefined : await loader.load(spec);
  const labels = spec.labels?.length ? spec.labels : tokenizer?.modelConfig.labels;
  return {
    spec,
    ...(tokenizer ? { tokenizer } : {}),
    inputNames: spec.inputs.length > 0 ? spec.inputs.map((input) => input.name) : TEXT_INPUT_NAMES,
    ...(labels ? { labels } : {}),
  };
}

/** `table` with `model` servable (a retried load that succeeded); the original is left as it was. */
export function withServable(table: EndpointTable, model: ServableModel): EndpointTable {
  const models = new Map(table.models).set(model.spec.id, model);
  const unservable = new Map(table.unservable);
  unservable.delete(model.spec.id);
  return { ...table, models, unservable };
}

/** `table` with model `id` unservable for `reason`; the original is left as it was. */
export function withUnservable(table: EndpointTable, id: string, reason: string): EndpointTable {
  return { ...table, unservable: new Map(table.unservable).set(id, reason) };
}

/** An error's message, for a reason shown to people. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The servable model `id`, or 404 (left unloaded by its version policy) or 503 saying why it is not. */
export function servableModel(table: EndpointTable, id: string): ServableModel {
  const model = table.models.get(id);
  if (model) return model;
  const unloaded = table.unloaded.get(id);
  if (unloaded) throw notLoaded(table, unloaded);
  const why = table.unservable.get(id);
  throw new ModelgateError(
    ErrorCode.UNAVAILABLE,
    why
      ? `model ${id} cannot be served by this gateway: ${why}`
      : `model ${id} is not in the current configuration`,
  );
}

/** NOT_FOUND for a READY version its model's version policy leaves unloaded, saying how to load it. */
export function notLoaded(table: EndpointTable, spec: ModelSpec): ModelgateError {
  const policy = describeVersionPolicy(table.versionPolicies.get(spec.name) ?? DEFAULT_VERSION_POLICY);
  return new ModelgateError(
    ErrorCode.NOT_FOUND,
    `model ${spec.id} is not loaded: no endpoint routes it and the version policy of ${spec.name} ` +
      `(${policy}) does not select it; route it, or load it with ` +
      `'modelgate model policy ${spec.name} all' (or 'specific:${spec.version}')`,
  );
}
