import { basename } from 'node:path';
import { type Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import {
  DEFAULT_EXTERNAL_DATA_NAME,
  ErrorCode,
  ModelgateError,
  isModelgateError,
  type ModelTask,
  type ModelView,
  RAW_TAKES_NO_TOKENIZER,
  TOKENIZER_BUNDLE_FILES,
  requiredBundleFiles,
  uploadFieldsSchema,
  DECODER_MODEL_FILE,
  ENCODER_MODEL_FILE,
} from '@modelgate/contracts';
import { packBundle } from '@modelgate/model-store';
import { type FastifyRequest } from 'fastify';
import { parseInput } from '../admin-api/parse-body.js';
import { ArtifactStore, type StoredArtifact } from '../artifacts/artifact-store.js';
import { type Actor } from '../outbox/actor.js';
import { type RegistryConfig } from '../registry.config.js';
import { REGISTRY_CONFIG } from '../registry.tokens.js';
import { ModelsService } from './models.service.js';

/** The model file of an upload. */
export const MODEL_FILE = 'model.onnx';

/** The model's ONNX external data file, when its export keeps the weights outside the graph. */
export const EXTERNAL_DATA_FILE = DEFAULT_EXTERNAL_DATA_NAME;

/** image-to-text: the vision encoder graph of a Hugging Face vision-encoder-decoder export. */
export const ENCODER_FILE = ENCODER_MODEL_FILE;

/** image-to-text: the decoder with past (stored as the model's artifact), in place of model.onnx. */
export const DECODER_FILE = DECODER_MODEL_FILE;

/** Files packed into the tokenizer bundle, when uploaded (requiredBundleFiles says which the task needs). */
export const TOKENIZER_FILES = TOKENIZER_BUNDLE_FILES;

/** Largest tokenizer-side file accepted; they are held in memory to pack the bundle. */
const TOKENIZER_FILE_MAX_BYTES = 64 * 1024 * 1024;

/** Form fields that carry JSON. */
const JSON_FIELDS = new Set(['batching', 'runtime', 'labels']);

/**
 * `POST /v1/models/upload`: a Hugging Face export directory as multipart/form-data. model.onnx
 * and its external data model.onnx_data, when the export has one, stream into the artifact store
 * (hashed on the way, never buffered whole); the tokenizer files
 * become one ustar bundle; the model is then registered with URIs of this registry's
 * /v1/artifacts. A file part is recognised by its field name or its file name. An image-to-text
 * model comes as encoder_model.onnx and decoder_model_merged.onnx (the artifact) instead.
 */
@Injectable()
export class ModelUploadService {
  constructor(
    @Inject(ArtifactStore) private readonly store: ArtifactStore,
    private readonly models: ModelsService,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
  ) {}

  async upload(actor: Actor, request: FastifyRequest): Promise<ModelView> {
    if (!request.isMultipart()) {
      throw new ModelgateError(
        ErrorCode.UNSUPPORTED_MEDIA_TYPE,
        'POST /v1/models/upload takes multipart/form-data (fields plus model.onnx and tokenizer files)',
      );
    }
    const fields: Record<string, unknown> = {};
    const tokenizerFiles: Record<string, Buffer> = {};
    const problems: string[] = [];
    let model: StoredArtifact | undefined;
    let externalData: StoredArtifact | undefined;
    let encoder: StoredArtifact | undefined;
    let decoder: StoredArtifact | undefined;

    // Each field and file once: a repeated one used to replace the one before without a word.
    const seen = new Set<string>();
    const repeated = (kind: 'field' | 'file', name: string): boolean => {
      if (!seen.has(`${kind}:${name}`)) {
        seen.add(`${kind}:${name}`);
        return false;
      }
      problems.push(`${kind} '${name}' is given twice; give it once`);
      return true;
    };
    try {
      for await (const part of request.parts()) {
        if (part.type === 'field') {
          if (!repeated('field', part.fieldname))
            fields[part.fieldname] = this.#fieldValue(part.fieldname, String(part.value), problems);
          continue;
        }
        const name = fileNameOf(part.fieldname, part.filename);
        if (repeated('file', name)) {
          part.file.resume();
        } else if (name === MODEL_FILE) {
          model = await this.store.write(part.file, this.config.REGISTRY_ARTIFACT_MAX_BYTES, MODEL_FILE);
        } else if (name === ENCODER_FILE) {
          encoder = await this.store.write(part.file, this.config.REGISTRY_ARTIFACT_MAX_BYTES, ENCODER_FILE);
        } else if (name === DECODER_FILE) {
          decoder = await this.store.write(part.file, this.config.REGISTRY_ARTIFACT_MAX_BYTES, DECODER_FILE);
        } else if (name === EXTERNAL_DATA_FILE) {
          externalData = await this.store.write(
            part.file,
            this.config.REGISTRY_ARTIFACT_MAX_BYTES,
            EXTERNAL_DATA_FILE,
          );
        } else if (isTokenizerFile(name)) {
          tokenizerFiles[name] = await readLimited(part.file, TOKENIZER_FILE_MAX_BYTES, name);
          if (part.file.truncated) {
            throw new ModelgateError(ErrorCode.PAYLOAD_TOO_LARGE, `${name} is over the upload size limit`);
          }
        } else {
          part.file.resume();
          problems.push(
            `unexpected file '${part.filename || part.fieldname}'; expected ${MODEL_FILES.join(', ')} or ${TOKENIZER_FILES.join(', ')}`,
          );
        }
      }
    } catch (error) {
      throw malformedBody(error);
    }
    if (problems.length > 0) throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, problems.join('; '));

    const settings = parseInput(uploadFieldsSchema, fields, 'model upload');
    const tokenizerGiven = Object.keys(tokenizerFiles);
    if (settings.task === 'raw' && tokenizerGiven.length > 0) {
      throw new ModelgateError(
        ErrorCode.INVALID_ARGUMENT,
        `${tokenizerGiven.join(', ')}: ${RAW_TAKES_NO_TOKENIZER}`,
        {
          field: tokenizerGiven[0]!,
        },
      );
    }
    const graphs = checkGraphParts(settings.task, { model, externalData, encoder, decoder });
    for (const name of requiredBundleFiles(settings.task)) {
      if (tokenizerFiles[name] !== undefined) continue;
      throw new ModelgateError(
        ErrorCode.INVALID_ARGUMENT,
        `${name}: the file is required for task ${settings.task}`,
        { field: name },
      );
    }
    const bundle =
      Object.keys(tokenizerFiles).length > 0
        ? await this.store.writeBytes(packBundle(tokenizerFiles))
        : undefined;
    return this.models.register(actor, {
      ...settings,
      artifact: { uri: this.store.uriOf(graphs.artifact.sha256), sha256: graphs.artifact.sha256 },
      ...(graphs.encoder === undefined
        ? {}
        : { encoder: { uri: this.store.uriOf(graphs.encoder.sha256), sha256: graphs.encoder.sha256 } }),
      externalData:
        externalData === undefined
          ? []
          : [
              {
                name: EXTERNAL_DATA_FILE,
                uri: this.store.uriOf(externalData.sha256),
                sha256: externalData.sha256,
              },
            ],
      tokenizer: bundle && { uri: this.store.uriOf(bundle.sha256), sha256: bundle.sha256 },
    });
  }

  #fieldValue(name: string, raw: string, problems: string[]): unknown {
    if (!JSON_FIELDS.has(name)) return raw;
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      problems.push(`${name}: must be JSON`);
      return undefined;
    }
  }
}

/** The graph files an upload may carry: model.onnx (+ external data), or image-to-text's two graphs. */
const MODEL_FILES = [MODEL_FILE, EXTERNAL_DATA_FILE, ENCODER_FILE, DECODER_FILE] as const;

/** The graph parts an upload carried. */
interface GraphParts {
  model: StoredArtifact | undefined;
  externalData: StoredArtifact | undefined;
  encoder: StoredArtifact | undefined;
  decoder: StoredArtifact | undefined;
}

/**
 * The model's artifact (and encoder) from the graph parts, or INVALID_ARGUMENT naming the part
 * that is missing or does not belong to `task`: image-to-text takes encoder_model.onnx and
 * decoder_model_merged.onnx (the artifact), every other task model.onnx and its external data.
 */
function checkGraphParts(
  task: ModelTask,
  parts: GraphParts,
): { artifact: StoredArtifact; encoder?: StoredArtifact } {
  const refuse = (field: string, message: string) =>
    new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${field}: ${message}`, { field });
  if (task === 'image-to-text') {
    const misplaced = parts.model !== undefined ? MODEL_FILE : parts.externalData && EXTERNAL_DATA_FILE;
    if (misplaced !== undefined) {
      throw refuse(
        misplaced,
        `task image-to-text takes ${ENCODER_FILE} and ${DECODER_FILE} (a vision-encoder-decoder export), not ${misplaced}`,
      );
    }
    const required = 'the file is required for task image-to-text';
    if (parts.encoder === undefined) throw refuse(ENCODER_FILE, required);
    if (parts.decoder === undefined) throw refuse(DECODER_FILE, required);
    return { artifact: parts.decoder, encoder: parts.encoder };
  }
  const foreign = parts.encoder !== undefined ? ENCODER_FILE : parts.decoder && DECODER_FILE;
  if (foreign !== undefined) {
    throw refuse(foreign, `is for image-to-text models only (this one is ${task}); upload ${MODEL_FILE}`);
  }
  if (parts.model === undefined) throw refuse(MODEL_FILE, 'the file is required');
  return { artifact: parts.model };
}

function fileNameOf(fieldname: string, filename: string): string {
  const byField = basename(fieldname);
  return (MODEL_FILES as readonly string[]).includes(byField) || isTokenizerFile(byField)
    ? byField
    : basename(filename);
}

function isTokenizerFile(name: string): name is (typeof TOKENIZER_FILES)[number] {
  return (TOKENIZER_FILES as readonly string[]).includes(name);
}

/**
 * `error` as a 400 when the multipart parser raised it (a truncated or malformed body: a plain
 * Error, with neither an errno code nor an HTTP status); anything else (a full disk, a refusal of
 * ours, a limit with its own status) as it is.
 */
function malformedBody(error: unknown): unknown {
  if (!(error instanceof Error) || isModelgateError(error) || 'code' in error || 'statusCode' in error)
    return error;
  return new ModelgateError(
    ErrorCode.INVALID_ARGUMENT,
    `the multipart body could not be read: ${error.message}`,
    {},
    { cause: error },
  );
}

async function readLimited(stream: Readable, maxBytes: number, name: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stream) {
    const buffer = chunk as Buffer;
    bytes += buffer.length;
    if (bytes > maxBytes) {
      stream.resume();
      throw new ModelgateError(ErrorCode.PAYLOAD_TOO_LARGE, `${name} is over the limit of ${maxBytes} bytes`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}
