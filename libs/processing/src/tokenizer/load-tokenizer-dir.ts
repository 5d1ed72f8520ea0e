import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type TextTokenizer, loadTokenizer } from './text-tokenizer.js';

/** File names of a Hugging Face tokenizer bundle. */
export const TOKENIZER_FILES = {
  tokenizerJson: 'tokenizer.json',
  tokenizerConfig: 'tokenizer_config.json',
  config: 'config.json',
  generationConfig: 'generation_config.json',
} as const;

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Loads the tokenizer bundle in `dir` (tokenizer.json required; tokenizer_config.json,
 * config.json and generation_config.json optional). A missing tokenizer.json is INVALID_ARGUMENT naming the path.
 */
export async function loadTokenizerFromDir(dir: string): Promise<TextTokenizer> {
  const [tokenizerJson, tokenizerConfig, config, generationConfig] = await Promise.all([
    readOptional(join(dir, TOKENIZER_FILES.tokenizerJson)),
    readOptional(join(dir, TOKENIZER_FILES.tokenizerConfig)),
    readOptional(join(dir, TOKENIZER_FILES.config)),
    readOptional(join(dir, TOKENIZER_FILES.generationConfig)),
  ]);
  if (tokenizerJson === undefined) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `no ${TOKENIZER_FILES.tokenizerJson} in tokenizer bundle ${dir}`,
    );
  }
  return loadTokenizer({
    tokenizerJson,
    ...(tokenizerConfig === undefined ? {} : { tokenizerConfig }),
    ...(config === undefined ? {} : { config }),
    ...(generationConfig === undefined ? {} : { generationConfig }),
  });
}
