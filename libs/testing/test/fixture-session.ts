// Test support: encode texts with the fixture's own tokenizer.json and run the fixture's graph in
// onnxruntime, padding batches the way a serving worker does (right padding with [PAD] = 0).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import * as ort from 'onnxruntime-node';
import { type FixtureSpec, MODEL_FILE } from '../src/index.js';

/** Token ids and segment ids of one text. */
export interface EncodedText {
  ids: number[];
  typeIds: number[];
}

/** A float output with its shape. */
export interface FloatOutput {
  data: Float32Array;
  dims: readonly number[];
}

/** The part of @huggingface/tokenizers' Tokenizer the tests use. */
export interface FixtureTokenizer {
  encode(
    text: string,
    options?: { text_pair?: string | null; add_special_tokens?: boolean; return_token_type_ids?: boolean },
  ): { ids: number[]; tokens: string[]; attention_mask: number[]; token_type_ids?: number[] };
  decode(ids: number[], options?: { skip_special_tokens?: boolean }): string;
}

// The package's .d.ts files import each other without file extensions, which nodenext resolution
// cannot follow, so TypeScript sees the class as an error type: give it its real shape here.
const TokenizerClass = Tokenizer as unknown as new (
  tokenizerJson: object,
  tokenizerConfig: object,
) => FixtureTokenizer;

async function readJson(path: string): Promise<object> {
  const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
  if (typeof parsed !== 'object' || parsed === null) throw new Error(`${path} is not a JSON object`);
  return parsed;
}

/** Loads tokenizer.json + tokenizer_config.json of a fixture with @huggingface/tokenizers. */
export async function loadFixtureTokenizer(dir: string): Promise<FixtureTokenizer> {
  const [tokenizerJson, tokenizerConfig] = await Promise.all([
    readJson(join(dir, 'tokenizer.json')),
    readJson(join(dir, 'tokenizer_config.json')),
  ]);
  return new TokenizerClass(tokenizerJson, tokenizerConfig);
}

/** Encodes one text with [CLS] … [SEP] and segment ids. */
export function encodeText(tokenizer: FixtureTokenizer, text: string): EncodedText {
  const encoding = tokenizer.encode(text, { return_token_type_ids: true });
  return { ids: encoding.ids, typeIds: encoding.token_type_ids ?? encoding.ids.map(() => 0) };
}

/** Opens the fixture's model with default CPU options. */
export function openFixtureSession(dir: string): Promise<ort.InferenceSession> {
  return ort.InferenceSession.create(join(dir, MODEL_FILE));
}

/** Builds int64 feeds for the given input names, right-padding every text to the longest one. */
export function toFeeds(
  texts: readonly EncodedText[],
  inputNames: readonly string[],
): Record<string, ort.Tensor> {
  const batch = texts.length;
  const sequence = Math.max(...texts.map((text) => text.ids.length));
  const columns = {
    input_ids: new BigInt64Array(batch * sequence),
    attention_mask: new BigInt64Array(batch * sequence),
    token_type_ids: new BigInt64Array(batch * sequence),
  };
  texts.forEach((text, row) => {
    text.ids.forEach((id, col) => {
      const at = row * sequence + col;
      columns.input_ids[at] = BigInt(id);
      columns.attention_mask[at] = 1n;
      columns.token_type_ids[at] = BigInt(text.typeIds[col] ?? 0);
    });
  });
  const feeds: Record<string, ort.Tensor> = {};
  for (const name of inputNames) {
    if (!(name in columns)) throw new Error(`Unexpected model input ${name}`);
    feeds[name] = new ort.Tensor('int64', columns[name as keyof typeof columns], [batch, sequence]);
  }
  return feeds;
}

/** Runs the session on the texts (one padded batch) and returns its only output. */
export async function runTexts(
  session: ort.InferenceSession,
  texts: readonly EncodedText[],
): Promise<FloatOutput> {
  const results = await session.run(toFeeds(texts, session.inputNames));
  const [outputName] = session.outputNames;
  const output = outputName === undefined ? undefined : results[outputName];
  if (!(output instanceof ort.Tensor) || !(output.data instanceof Float32Array)) {
    throw new Error('Expected one float32 tensor output');
  }
  return { data: output.data, dims: output.dims };
}

/** Splits a [batch, …] output into one flat row per batch item. */
export function rowsOf(output: FloatOutput): Float32Array[] {
  const [batch = 0] = output.dims;
  const width = output.data.length / batch;
  return Array.from({ length: batch }, (_, row) => output.data.subarray(row * width, (row + 1) * width));
}

/** Largest absolute element-wise difference of two equally long arrays. */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let max = 0;
  for (let i = 0; i < a.length; i += 1) max = Math.max(max, Math.abs((a[i] ?? 0) - (b[i] ?? 0)));
  return max;
}

/** Softmax of one row of logits. */
export function softmax(logits: ArrayLike<number>): number[] {
  const values = Array.from(logits);
  const max = Math.max(...values);
  const exps = values.map((v) => Math.exp(v - max));
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((v) => v / sum);
}

/** Element-wise logistic sigmoid. */
export function sigmoid(logits: ArrayLike<number>): number[] {
  return Array.from(logits, (v) => 1 / (1 + Math.exp(-v)));
}

/**
 * A GPT-2 fixture's feeds for one row: `ids` after `pastLength` cached positions, the cache from
 * `past` (a previous run's present.N outputs), else empty; position_ids unless `positions` is false.
 */
export function decoderFeeds(
  spec: FixtureSpec,
  ids: number[],
  past: ort.InferenceSession.OnnxValueMapType | undefined,
  pastLength: number,
  positions = true,
): Record<string, ort.Tensor> {
  const int64 = (values: number[]) =>
    new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), [1, values.length]);
  const feeds: Record<string, ort.Tensor> = {
    input_ids: int64(ids),
    attention_mask: int64(Array<number>(pastLength + ids.length).fill(1)),
  };
  if (positions) feeds.position_ids = int64(ids.map((_, i) => pastLength + i));
  const headSize = spec.hiddenSize / spec.numHeads;
  for (let layer = 0; layer < spec.numLayers; layer += 1) {
    for (const part of ['key', 'value']) {
      feeds[`past_key_values.${layer}.${part}`] =
        past?.[`present.${layer}.${part}`] ??
        new ort.Tensor('float32', new Float32Array(0), [1, spec.numHeads, 0, headSize]);
    }
  }
  return feeds;
}
