import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { modelUploadForm, type ModelUploadSettings } from '@modelgate/admin-client';
import {
  DEFAULT_EXTERNAL_DATA_NAME,
  type ModelTask,
  TOKENIZER_BUNDLE_FILES,
  DECODER_MODEL_FILE,
  ENCODER_MODEL_FILE,
} from '@modelgate/contracts';
import { UsageError } from '../cli-errors.js';

/** The model file of a Hugging Face ONNX export: at the top of the directory or under `onnx/`. */
const MODEL_FILE = 'model.onnx';

/** An image-to-text (vision-encoder-decoder) export's two graphs, in place of model.onnx. */
const ENCODER_FILE = ENCODER_MODEL_FILE;
const DECODER_FILE = DECODER_MODEL_FILE;

/** Its ONNX external data (exports over 2 GB keep the weights there), beside the model file. */
const EXTERNAL_DATA_FILE = DEFAULT_EXTERNAL_DATA_NAME;

/** Files of the export the registry packs into the tokenizer bundle, when present. */
const TOKENIZER_FILES = TOKENIZER_BUNDLE_FILES;

/** One file of a model directory to upload. */
export interface ModelDirectoryFile {
  /** The name the registry knows it by (`model.onnx`, `tokenizer.json`, ...). */
  name: string;
  path: string;
  bytes: number;
}

/**
 * The files of a model export directory that an upload sends: model.onnx (and its external data)
 * at the top or under onnx/; for image-to-text encoder_model.onnx and decoder_model_merged.onnx
 * there instead; and the tokenizer files at the top (none for a raw model).
 */
export async function findModelFiles(dir: string, task: ModelTask): Promise<ModelDirectoryFile[]> {
  const root = resolve(dir);
  const info = await stat(root).catch(() => undefined);
  if (info === undefined) throw new UsageError(`--path ${dir}: no such directory`);
  if (!info.isDirectory())
    throw new UsageError(`--path ${dir}: not a directory (give the model's export directory)`);

  const files: ModelDirectoryFile[] = [];
  const graph = async (name: string, hint = ''): Promise<ModelDirectoryFile> => {
    const found = (await fileAt(join(root, name), name)) ?? (await fileAt(join(root, 'onnx', name), name));
    if (found === undefined)
      throw new UsageError(`--path ${dir}: no ${name} in it or in its onnx/ folder${hint}`);
    return found;
  };
  if (task === 'image-to-text') {
    const hint = ` (an image-to-text export has ${ENCODER_FILE} and ${DECODER_FILE})`;
    files.push(await graph(ENCODER_FILE, hint), await graph(DECODER_FILE, hint));
  } else {
    const model = await graph(MODEL_FILE);
    files.push(model);
    const externalData = await fileAt(join(dirname(model.path), EXTERNAL_DATA_FILE), EXTERNAL_DATA_FILE);
    if (externalData !== undefined) files.push(externalData);
  }
  // A raw model is served as tensors: the registry takes no tokenizer files for it.
  for (const name of task === 'raw' ? [] : TOKENIZER_FILES) {
    const file = await fileAt(join(root, name), name);
    if (file !== undefined) files.push(file);
  }
  return files;
}

async function fileAt(path: string, name: string): Promise<ModelDirectoryFile | undefined> {
  const info = await stat(path).catch(() => undefined);
  return info?.isFile() === true ? { name, path, bytes: info.size } : undefined;
}

/**
 * The multipart form of `POST /v1/models/upload`, each file a Blob backed by the file on disk
 * (`openAsBlob`), so fetch streams it instead of reading a model of hundreds of MB into memory.
 */
export async function buildUploadForm(
  settings: ModelUploadSettings,
  files: readonly ModelDirectoryFile[],
): Promise<FormData> {
  const blobs = await Promise.all(
    files.map(async (file) => ({ name: file.name, blob: await openAsBlob(file.path) })),
  );
  return modelUploadForm(settings, blobs);
}
