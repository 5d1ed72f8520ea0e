import { readFile } from 'node:fs/promises';
import { type ModelSpec, ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type ModelStore, unpackBundle } from '@modelgate/model-store';
import { type TextTokenizer, loadTokenizer } from '@modelgate/processing';

/** Byte offset and value of the ustar magic in a tar header. */
const USTAR_MAGIC_OFFSET = 257;
const USTAR_MAGIC = 'ustar';

/**
 * Loads a model's tokenizer from its tokenizer artifact: a ustar bundle of tokenizer.json,
 * tokenizer_config.json, config.json and (decoders) generation_config.json (what the registry publishes), or a bare tokenizer.json
 * (hand-written snapshots). Gateways fetch only this, never model weights. Cached by sha256.
 */
export class TokenizerLoader {
  private readonly loaded = new Map<string, Promise<TextTokenizer>>();

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

  /** Forgets tokenizers no longer referenced by `keep` (sha256 values). */
  retain(keep: ReadonlySet<string>): void {
    for (const sha of this.loaded.keys()) if (!keep.has(sha)) this.loaded.delete(sha);
  }

  private async fetchAndParse(ref: { uri: string; sha256: string }): Promise<TextTokenizer> {
    const artifact = await this.store.fetchArtifact(ref);
    const bytes = await readFile(artifact.path);
    const magic = bytes
      .subarray(USTAR_MAGIC_OFFSET, USTAR_MAGIC_OFFSET + USTAR_MAGIC.length)
      .toString('latin1');
    if (magic !== USTAR_MAGIC) return loadTokenizer({ tokenizerJson: bytes.toString('utf8') });
    const files = unpackBundle(bytes);
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
