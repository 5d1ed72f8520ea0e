/**
 * Imports a model registered as `hf://org/name[@revision]` into the registry's artifact store, the
 * way an upload of the same export directory would store it: onnx/model.onnx and, when the
 * repository has it, onnx/model.onnx_data stream in (hashed on the way, never held in memory); the
 * tokenizer files are packed into one bundle. An image-to-text model is a vision-encoder-decoder
 * export instead: onnx/encoder_model.onnx and onnx/decoder_model_merged.onnx (the artifact). Workers and gateways then fetch from this registry
 * only, by digest, and never need the Hub.
 */
import { createHash } from 'node:crypto';
import { type Readable } from 'node:stream';
import {
  type ArtifactRef,
  DEFAULT_EXTERNAL_DATA_NAME,
  ErrorCode,
  type ExternalDataRef,
  formatHfUri,
  type HfModelRef,
  type ModelTask,
  ModelgateError,
  parseHfUri,
  requiredBundleFiles,
  DECODER_MODEL_FILE,
  ENCODER_MODEL_FILE,
} from '@modelgate/contracts';
import { type HfHub, packBundle } from '@modelgate/model-store';
import { type ArtifactStore } from '../artifacts/artifact-store.js';
import { TOKENIZER_FILES } from '../models/model-upload.service.js';

/** Injection token of the ModelImporter. */
export const MODEL_IMPORTER = Symbol('MODEL_IMPORTER');

/** Where the files of an hf:// export lie in the repository (optimum's and transformers.js' layout). */
export const HF_MODEL_FILE = 'onnx/model.onnx';
export const HF_EXTERNAL_DATA_FILE = `onnx/${DEFAULT_EXTERNAL_DATA_NAME}`;
/** image-to-text: the vision encoder and the decoder with past of a vision-encoder-decoder export. */
export const HF_ENCODER_FILE = `onnx/${ENCODER_MODEL_FILE}`;
export const HF_DECODER_FILE = `onnx/${DECODER_MODEL_FILE}`;

/** Largest tokenizer-side file accepted; they are held in memory to pack the bundle. */
const TOKENIZER_FILE_MAX_BYTES = 64 * 1024 * 1024;

/** What an import stored, as the model row records it. */
export interface ImportedFiles {
  artifact: ArtifactRef;
  /** image-to-text: the encoder graph; null for other tasks. */
  encoder: ArtifactRef | null;
  externalData: ExternalDataRef[];
  tokenizer: ArtifactRef | null;
  /** The commit the revision resolved to (every file was fetched at it), when the Hub said. */
  commit: string | undefined;
}

/** Imports a registered source's files; the preparation service's view of HfModelImporter. */
export interface ModelImporter {
  importSource(source: string, task: ModelTask): Promise<ImportedFiles>;
}

/** Imports hf:// sources from one Hub endpoint into one artifact store. */
export class HfModelImporter implements ModelImporter {
  constructor(
    private readonly hub: HfHub,
    private readonly store: ArtifactStore,
    private readonly maxBytes: number,
  ) {}

  /**
   * Fetches the tokenizer files first (those requiredBundleFiles names must be there), then the
   * model and its external data (image-to-text: the encoder, then the decoder), every file after the first at the commit the first resolved to,
   * so a branch that moves meanwhile cannot mix two commits. Throws ModelgateError naming the
   * repository and file (see HfHub.download), or INVALID_ARGUMENT for a missing required file.
   */
  async importSource(source: string, task: ModelTask): Promise<ImportedFiles> {
    const requested = parseHfUri(source);
    let ref = requested;
    let shownAs = formatHfUri(requested);
    let commit: string | undefined;
    const pin = (found: string | undefined): void => {
      if (commit !== undefined || found === undefined) return;
      commit = found;
      if (found !== requested.revision) shownAs = `${formatHfUri(requested)} (commit ${found.slice(0, 12)})`;
      ref = { ...ref, revision: found };
    };

    const tokenizerFiles: Record<string, Buffer> = {};
    // A raw model is served as tensors: its tokenizer files would be stored and never read.
    for (const name of task === 'raw' ? [] : TOKENIZER_FILES) {
      const required = requiredBundleFiles(task).includes(name);
      const got = await this.hub.download(
        ref,
        name,
        (stream) => readAll(stream, TOKENIZER_FILE_MAX_BYTES, name),
        { maxBytes: TOKENIZER_FILE_MAX_BYTES, optional: true, shownAs },
      );
      if (got === undefined) {
        if (required) throw missingBundleFile(requested, task, name);
        continue;
      }
      pin(got.commit);
      tokenizerFiles[name] = got.stored.data;
    }

    let encoder: ArtifactRef | null = null;
    if (task === 'image-to-text') {
      const stored = await this.#store(ref, HF_ENCODER_FILE, false, shownAs);
      if (stored === undefined) throw new Error(`${HF_ENCODER_FILE} resolved to nothing though required`);
      pin(stored.commit);
      encoder = this.#ref(stored.stored.sha256);
    }
    const modelFile = task === 'image-to-text' ? HF_DECODER_FILE : HF_MODEL_FILE;
    const model = await this.#store(ref, modelFile, false, shownAs);
    if (model === undefined) throw new Error(`${modelFile} resolved to nothing though required`);
    pin(model.commit);
    const data =
      task === 'image-to-text' ? undefined : await this.#store(ref, HF_EXTERNAL_DATA_FILE, true, shownAs);
    const bundle =
      Object.keys(tokenizerFiles).length > 0
        ? await this.store.writeBytes(packBundle(tokenizerFiles))
        : undefined;
    return {
      artifact: this.#ref(model.stored.sha256),
      encoder,
      externalData:
        data === undefined ? [] : [{ name: DEFAULT_EXTERNAL_DATA_NAME, ...this.#ref(data.stored.sha256) }],
      tokenizer: bundle === undefined ? null : this.#ref(bundle.sha256),
      commit,
    };
  }

  async #store(ref: HfModelRef, file: string, optional: boolean, shownAs: string) {
    return this.hub.download(
      ref,
      file,
      (stream) => this.store.write(stream, this.maxBytes, `${ref.repo}/${file}`),
      { maxBytes: this.maxBytes, optional, shownAs },
    );
  }

  #ref(sha256: string): ArtifactRef {
    return { uri: this.store.uriOf(sha256), sha256 };
  }
}

function missingBundleFile(ref: HfModelRef, task: ModelTask, name: string): ModelgateError {
  return new ModelgateError(
    ErrorCode.INVALID_ARGUMENT,
    `${formatHfUri(ref)} has no ${name}, which task ${task} needs ` +
      '(a Hugging Face export keeps it at the top of the repository; register with --task raw to serve tensors only)',
  );
}

async function readAll(
  stream: Readable,
  maxBytes: number,
  name: string,
): Promise<{ data: Buffer; sha256: string; bytes: number }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stream) {
    const buffer = chunk as Buffer;
    bytes += buffer.length;
    if (bytes > maxBytes) {
      throw new ModelgateError(ErrorCode.PAYLOAD_TOO_LARGE, `${name} is over the limit of ${maxBytes} bytes`);
    }
    chunks.push(buffer);
  }
  const data = Buffer.concat(chunks, bytes);
  return { data, sha256: createHash('sha256').update(data).digest('hex'), bytes };
}
