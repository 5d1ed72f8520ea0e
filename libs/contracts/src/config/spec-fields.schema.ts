import { z } from 'zod';
import { MAX_TIMER_MS } from './env-schema.js';
import { reportDuplicates } from './report-duplicates.js';

/** Names of models, endpoints and worker groups: lowercase DNS-label style, 1-63 characters. */
export const RESOURCE_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * Model versions are positive integers written as decimal strings without leading zeros, at most
 * 9 digits ("1", "42"), so that ids read `name:1` and every version fits a Postgres integer.
 */
export const MODEL_VERSION_PATTERN = /^[1-9][0-9]{0,8}$/;

/** Model ids: `name:version`, e.g. `sst2-minilm:3`. */
export const MODEL_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}:[1-9][0-9]{0,8}$/;

/** A model, endpoint or worker group name. */
export const resourceNameSchema = z
  .string()
  .regex(
    RESOURCE_NAME_PATTERN,
    'must be 1-63 lowercase letters, digits or dashes, starting with a letter or digit',
  );

/** A model version: a positive integer as a decimal string, e.g. "1". */
export const modelVersionSchema = z
  .string()
  .regex(
    MODEL_VERSION_PATTERN,
    'must be a positive integer written as a string without leading zeros, e.g. "1"',
  );

/** A model id, `name:version`. */
export const modelIdSchema = z
  .string()
  .regex(MODEL_ID_PATTERN, 'must be a model id "name:version", e.g. "sst2:1"');

/** A strictly positive integer (safe range). */
export const positiveIntSchema = z.int().min(1);

/**
 * A request deadline in milliseconds: at most what a Node timer keeps (and a Postgres integer
 * holds), about 24.8 days.
 */
export const timeoutMsSchema = z.int().min(1).max(MAX_TIMER_MS);

/** A non-negative integer (safe range). */
export const nonNegativeIntSchema = z.int().min(0);

/**
 * Class labels by output index: each names one class, so none repeats (a repeated label would make
 * two classes one in every answer, and the config snapshot refuses it).
 */
export const labelsSchema = z
  .array(z.string().min(1))
  .min(1)
  .superRefine((labels, ctx) =>
    reportDuplicates(
      ctx,
      labels,
      (label) => label,
      (i) => [i],
      'label',
    ),
  );

/** URI schemes the model store fetches artifacts from. */
export const ARTIFACT_URI_SCHEMES = ['file:', 'http:', 'https:', 's3:'] as const;

function hasArtifactScheme(uri: string): boolean {
  if (!URL.canParse(uri)) return false;
  return (ARTIFACT_URI_SCHEMES as readonly string[]).includes(new URL(uri).protocol);
}

/** Where an artifact lives plus its content hash (lowercased). */
export const artifactRefSchema = z.object({
  uri: z
    .string()
    .refine(hasArtifactScheme, 'must be an absolute file://, http://, https:// or s3:// URI')
    .describe('Absolute URI of the file or bundle: file://, http(s):// or s3://.'),
  sha256: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be a SHA-256 digest: 64 hexadecimal digits')
    .transform((digest) => digest.toLowerCase())
    .describe('SHA-256 of the content, 64 hex digits; stored lowercase.'),
});

/** A fetchable artifact: URI plus SHA-256. */
export type ArtifactRef = z.infer<typeof artifactRefSchema>;

/**
 * File names an ONNX graph may record for its external data (`location` of a TensorProto whose
 * data_location is EXTERNAL): one plain file name beside the model file, e.g. `model.onnx_data`.
 * Sub-directories and `..` are refused, so every file lands inside the model's own directory.
 */
export const EXTERNAL_DATA_NAME_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

/** True when `name` is a plain file name an external data file may have (the pattern, and not `.` or `..`). */
export function isExternalDataName(name: string): boolean {
  return EXTERNAL_DATA_NAME_PATTERN.test(name) && name !== '.' && name !== '..';
}

/** The model file's own name inside its directory; no external data file may take it. */
export const MODEL_FILE_NAME = 'model.onnx';

/**
 * Files of a Hugging Face export that make up a model's tokenizer bundle (a ustar the gateways
 * fetch), when present: tokenizer.json (required unless the task is raw), its config, the model's
 * config.json (labels, length, eos), for text-generation generation_config.json (eos,
 * default decoding settings) and for image-classification preprocessor_config.json (resize,
 * rescale and normalization of the image processor; an image model has no tokenizer.json).
 */
export const TOKENIZER_BUNDLE_FILES = [
  'tokenizer.json',
  'tokenizer_config.json',
  'config.json',
  'special_tokens_map.json',
  'generation_config.json',
  'preprocessor_config.json',
] as const;

/** The name Hugging Face exports (optimum, transformers.js) give a model's external data. */
export const DEFAULT_EXTERNAL_DATA_NAME = 'model.onnx_data';

/** Most external data files one model may have. */
export const MAX_EXTERNAL_DATA_FILES = 16;

/** One external data file: the name the graph records for it, where it is, and its SHA-256. */
export const externalDataRefSchema = artifactRefSchema.extend({
  name: z
    .string()
    .regex(
      EXTERNAL_DATA_NAME_PATTERN,
      'must be a plain file name (letters, digits, . _ -), e.g. "model.onnx_data"',
    )
    .refine((name) => name !== '.' && name !== '..', 'must be a file name, not "." or ".."')
    .refine((name) => name !== MODEL_FILE_NAME, `must not be "${MODEL_FILE_NAME}", the model file's own name`)
    .describe("File name the graph's initializers point at (their `location`), e.g. `model.onnx_data`."),
});

/** One external data file of a model. */
export type ExternalDataRef = z.infer<typeof externalDataRefSchema>;

function externalDataList<T extends z.ZodType<{ name: string }>>(item: T) {
  return z
    .array(item)
    .max(MAX_EXTERNAL_DATA_FILES)
    .superRefine((files, ctx) =>
      reportDuplicates(
        ctx,
        files,
        (file) => file.name,
        (i) => [i, 'name'],
        'external data file name',
      ),
    );
}

/**
 * ONNX external data (weights kept outside the .onnx file, as exports over 2 GB must): the files
 * are placed beside the model file under their names before onnxruntime opens it.
 */
export const externalDataListSchema = externalDataList(externalDataRefSchema);

/** The same list in a registration request, where an unknown key in an entry is refused. */
export const externalDataRequestListSchema = externalDataList(externalDataRefSchema.strict());

/** The id of version `version` of model `name`: `name:version`. */
export function formatModelId(name: string, version: string): string {
  return `${name}:${version}`;
}

/** Splits a model id into name and version; undefined when it is not `name:version`. */
export function parseModelId(id: string): { name: string; version: string } | undefined {
  if (!MODEL_ID_PATTERN.test(id)) return undefined;
  const separator = id.lastIndexOf(':');
  return { name: id.slice(0, separator), version: id.slice(separator + 1) };
}
