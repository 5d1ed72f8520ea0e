import { readFile } from 'node:fs/promises';
import { type ModelSpec, ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type ModelStore, unpackBundle } from '@modelgate/model-store';
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

/**
 * Loads a model's tokenizer (or an image model's preprocessor_config.json) from its tokenizer artifact: a ustar bundle of tokenizer.json,
 * tokenizer_config.json, config.json and (decoders) generation_config.json (what the registry publishes), or a bare tokenizer.json
 * (hand-written snapshots). Gateways fetch only this, never model weights. Cached by sha256.
 */
export class TokenizerLoader {
  private readonly loaded = new Map<string, Promise<TextTokenizer>>();
  private readonly images = new Map<string, Promise<ImageModelFiles>>();

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
    const ref = spec.tokenizer;
    if (!ref) {
      return Promise.reject(
        new ModelgateError(
          ErrorCode.INVALID_ARGUMENT,
          `model ${spec.id} has no bundle with its preprocessor_config.json`,
        ),
      );
    }
    let pending = this.images.get(ref.sha256);
    if (!pending) {
      pending = this.fetchImageFiles(ref);
      pending.catch(() => this.images.delete(ref.sha256));
      this.images.set(ref.sha256, pending);
    }
    return pending;
  }

  /** Forgets tokenizers no longer referenced by `keep` (sha256 values). */
  retain(keep: ReadonlySet<string>): void {
    for (const sha of this.loaded.keys()) if (!keep.has(sha)) this.loaded.delete(sha);
    for (const sha of this.images.keys()) if (!keep.has(sha)) this.images.delete(sha);
  }

  private async fetchImageFiles(ref: { uri: string; sha256: string }): Promise<ImageModelFiles> {
    const files = await this.fetchFiles(ref);
    const json = (name: string): unknown => {
      const bytes = files[name];
      if (bytes === undefined) return undefined;
      try {
        return JSON.parse(bytes.toString('utf8')) as unknown;
      } catch {
        throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${name} of ${ref.uri} is not valid JSON`);
      }
    };
    const preprocessorConfig = json('preprocessor_config.json');
    if (preprocessorConfig === undefined) {
      throw new ModelgateError(
        ErrorCode.INVALID_ARGUMENT,
        `bundle ${ref.uri} has no preprocessor_config.json (an image model needs one)`,
      );
    }
    // Read at load, so that a config this pipeline cannot honour makes the model unservable.
    const processors = new Map<string, ImageProcessor>([
      [limitsKey(DEFAULT_IMAGE_LIMITS), loadImageProcessor(preprocessorConfig, DEFAULT_IMAGE_LIMITS)],
    ]);
    return {
      modelConfig: readModelConfig(json('config.json')),
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

  /** The files of an artifact: a bundle's, or a bare tokenizer.json. */
  private async fetchFiles(ref: { uri: string; sha256: string }): Promise<Record<string, Buffer>> {
    const artifact = await this.store.fetchArtifact(ref);
    const bytes = await readFile(artifact.path);
    const magic = bytes
      .subarray(USTAR_MAGIC_OFFSET, USTAR_MAGIC_OFFSET + USTAR_MAGIC.length)
      .toString('latin1');
    return magic === USTAR_MAGIC ? unpackBundle(bytes) : { 'tokenizer.json': bytes };
  }

  private async fetchAndParse(ref: { uri: string; sha256: string }): Promise<TextTokenizer> {
    const files = await this.fetchFiles(ref);
    const text = (name: string): string | undefined => files[name]?.toString('utf8');
    const tokenizerJson = text('tokenizer.json');
    if (tokenizerJson === undefined) {
      throw new ModelgateError(
        ErrorCode.INVALID_ARGUMENT,
        `tokenizer bundle ${ref.uri} has no tokenizer.json`,
      );
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
}

function limitsKey(limits: ImageLimits): string {
  return `${limits.maxImageBytes}/${limits.maxImagePixels}`;
}
