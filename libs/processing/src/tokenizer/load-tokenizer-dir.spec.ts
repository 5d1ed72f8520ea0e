import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode } from '@modelgate/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { miniTokenizerJson } from '../../test/mini-tokenizer.js';
import { loadTokenizerFromDir } from './load-tokenizer-dir.js';

describe('loadTokenizerFromDir', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'modelgate-tokenizer-'));
  });

  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('reads tokenizer.json, tokenizer_config.json and config.json of a bundle', async () => {
    await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(miniTokenizerJson()));
    await writeFile(join(dir, 'tokenizer_config.json'), JSON.stringify({ model_max_length: 12 }));
    await writeFile(join(dir, 'config.json'), JSON.stringify({ problem_type: 'multi_label_classification' }));
    const tokenizer = await loadTokenizerFromDir(dir);
    expect(tokenizer.maxLength).toBe(12);
    expect(tokenizer.modelConfig.multiLabel).toBe(true);
    expect(tokenizer.encode('hello').ids).toEqual([2, 5, 3]);
  });

  it('needs only tokenizer.json', async () => {
    await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(miniTokenizerJson()));
    expect((await loadTokenizerFromDir(dir)).maxLength).toBe(512);
  });

  it('answers INVALID_ARGUMENT naming the directory when tokenizer.json is missing', async () => {
    await expect(loadTokenizerFromDir(dir)).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      message: expect.stringContaining(`no tokenizer.json in tokenizer bundle ${dir}`) as unknown,
    });
  });
});
