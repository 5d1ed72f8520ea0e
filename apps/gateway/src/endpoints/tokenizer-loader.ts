import { readFile } from 'node:fs/promises';
import { type ModelSpec, ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type ModelStore, unpackBundle } from '@modelgate/model-store';
import { type CaptionDecoding, readCaptionDecoding } from '@modelgate/generation';
import {
  DEFAULT_IMAGE_LIMITS,
  type ImageLimits,
  type ImageProcessor,
  type ModelConfigFacts,
  type TextTokenizer,
  loadImageProcessor,
  loadTokenizer,
  readModelConfig,
} from '@modelgate/processing';

/** Byte offset and value of the ustar magic in a tar header. */
const USTAR_MAGIC_OFFSET = 257;
const USTAR_MAGIC = 'ustar';

/** An image model's preprocessing, read from the preprocessor_config.json of its bundle. */
export interface ImageModelFiles {
  /** The processor under `limits` (one per distinct limits, made on first use). */
  processorFor(limits: ImageLimits): ImageProcessor;
  /** What config.json says (labels, problem type); empty when the bundle has none. */
  modelConfig: ModelConfigFacts;
}

/** An image-to-text model's gateway side, read from one bundle. */
export interface CaptionModelFiles {
  /** Decodes the generated ids (tokenizer.json). */
  tokenizer: TextTokenizer;
  /** The image preprocessing (preprocessor_config.json). */
  image: ImageModelFiles;
  /** The decoder's start and end ids (generation_config.json, config.json and its decoder). */
  decoding: CaptionDecoding;
}

/** A bundle's files by name. */
type BundleFiles = Record<string, Buffer>;

/**
 * Loads a model's tokenizer (or an image model's preprocessor_config.json) from its tokenizer artifact: a ustar bundle of tokenizer.json,
 * tokenizer_config.json, config.json and (decoders) generation_config.json (what the registry publishes), or a bare tokenizer.json
 * (hand-written snapshots). Gateways fetch only this, never model weights. Cached by sha256.
 */
export class TokenizerLoader {
  private readonly loaded = new Map<string, Promise<TextTokenizer>>();
  private readonly images = new Map<string, Promise<ImageModelFiles>>();
  private readonly captioners = new Map<string, Promise<CaptionModelFiles>>();

  constructor(private readonly store: Pick<ModelStore, 'fetchArtifact'>) {}

  /** The tokenizer of `spec`; INVALID_ARGUMENT when the model has none. */
  load(spec: ModelSpec): Promise<TextTokenizer> {
    const ref = spec.tokenizer;
    if (!ref) {
      return Promise.reject(
        new ModelgateError(ErrorCode.INVALID_ARGUMENT, `model ${spec.id} has no tokenizer artifact`),
      );
    }
    let pending = this.loaded.get(ref.sha256);
    if (!pending) {
      pending = this.fetchAndParse(ref);
      pending.catch(() => this.loaded.delete(ref.sha256));
      this.loaded.set(ref.sha256, pending);
    }
    return pending;
  }

  /**
   * The image preprocessing of `spec` (image-classification): preprocessor_config.json and
   * config.json of its bundle; INVALID_ARGUMENT, saying why, for a missing or unusable config.
   */
  loadImage(spec: ModelSpec): Promise<ImageModelFiles> {
    return this.cached(this.images, spec, (files, uri) => parseImageFiles(files, uri));
  }

  /**
   * An image-to-text model's tokenizer, image preprocessing and decoder facts, from one bundle;
   * INVALID_ARGUMENT, saying why, for a missing or unusable file.
   */
  loadCaptioner(spec: ModelSpec): Promise<CaptionModelFiles> {
    return this.cached(this.captioners, spec, (files, uri) => {
      const image = parseImageFiles(files, uri);
      const decoding = readCaptionDecoding(
        jsonFile(files, 'config.json', uri),
        jsonFile(files, 'generation_config.json', uri),
      );
      if (typeof decoding === 'string')
        throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, `image-to-text model: ${decoding}`);
      return { tokenizer: parseTokenizer(files, uri), image, decoding };
    });
  }

  /** What `parse` makes of the bundle of `spec`, fetched once per sha256 (a failure is retried next time). */
  private cached<T>(
    cache: Map<string, Promise<T>>,
    spec: ModelSpec,
    parse: (files: BundleFiles, uri: string) => T,
  ): Promise<T> {
    const ref = spec.tokenizer;
    if (!ref) {
      return Promise.reject(
        new ModelgateError(
          ErrorCode.INVALID_ARGUMENT,
          `model ${spec.id} has no bundle with its preprocessor_config.json`,
        ),
      );
    }
    let pending = cache.get(ref.sha256);
    if (!pending) {
      pending = this.fetchFiles(ref).then((files) => parse(files, ref.uri));
      pending.catch(() => cache.delete(ref.sha256));
      cache.set(ref.sha256, pending);
    }
    return pending;
  }

  /** Forgets tokenizers no longer referenced by `keep` (sha256 values). */
  retain(keep: ReadonlySet<string>): void {
    for (const sha of this.loaded.keys()) if (!keep.has(sha)) this.loaded.delete(sha);
    for (const sha of this.images.keys()) if (!keep.has(sha)) this.images.delete(sha);
    for (const sha of this.captioners.keys()) if (!keep.has(sha)) this.captioners.delete(sha);
  }

  /** The files of an artifact: a bundle's, or a bare tokenizer.json. */
  private async fetchFiles(ref: { uri: string; sha256: string }): Promise<BundleFiles> {
    const artifact = await this.store.fetchArtifact(ref);
    const bytes = await readFile(artifact.path);
    const magic = bytes
      .subarray(USTAR_MAGIC_OFFSET, USTAR_MAGIC_OFFSET + USTAR_MAGIC.length)
      .toString('latin1');
    return magic === USTAR_MAGIC ? unpackBundle(bytes) : { 'tokenizer.json': bytes };
  }

  private async fetchAndParse(ref: { uri: string; sha256: string }): Promise<TextTokenizer> {
    return parseTokenizer(await this.fetchFiles(ref), ref.uri);
  }
}

/** The parsed JSON file `name` of a bundle; undefined when absent, INVALID_ARGUMENT when not JSON. */
function jsonFile(files: BundleFiles, name: string, uri: string): unknown {
  const bytes = files[name];
  if (bytes === undefined) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${name} of ${uri} is not valid JSON`);
  }
}

/** The tokenizer of a bundle: tokenizer.json, with tokenizer_config.json, config.json and generation_config.json when present. */
function parseTokenizer(files: BundleFiles, uri: string): TextTokenizer {
  const text = (name: string): string | undefined => files[name]?.toString('utf8');
  const tokenizerJson = text('tokenizer.json');
  if (tokenizerJson === undefined) {
    throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, `tokenizer bundle ${uri} has no tokenizer.json`);
  }
  const tokenizerConfig = text('tokenizer_config.json');
  const config = text('config.json');
  const generationConfig = text('generation_config.json');
  return loadTokenizer({
    tokenizerJson,
    ...(tokenizerConfig !== undefined ? { tokenizerConfig } : {}),
    ...(config !== undefined ? { config } : {}),
    ...(generationConfig !== undefined ? { generationConfig } : {}),
  });
}

/** The image preprocessing of a bundle (preprocessor_config.json, read now) and its config.json facts. */
function parseImageFiles(files: BundleFiles, uri: string): ImageModelFiles {
  const preprocessorConfig = jsonFile(files, 'preprocessor_config.json', uri);
  if (preprocessorConfig === undefined) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `bundle ${uri} has no preprocessor_config.json (an image model needs one)`,
    );
  }
  // Read at load, so that a config this pipeline cannot honour makes the model unservable.
  const processors = new Map<string, ImageProcessor>([
    [limitsKey(DEFAULT_IMAGE_LIMITS), loadImageProcessor(preprocessorConfig, DEFAULT_IMAGE_LIMITS)],
  ]);
  return {
    modelConfig: readModelConfig(jsonFile(files, 'config.json', uri)),
    processorFor(limits) {
      const key = limitsKey(limits);
      let processor = processors.get(key);
      if (!processor) {
        processor = loadImageProcessor(preprocessorConfig, limits);
        processors.set(key, processor);
      }
      return processor;
    },
  };
}

function limitsKey(limits: ImageLimits): string {
  return `${limits.maxImageBytes}/${limits.maxImagePixels}`;
}
