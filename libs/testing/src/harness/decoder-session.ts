// Test support: drive a GPT-2 fixture's graph in onnxruntime the way a generation engine does —
// prefill, then one token per step feeding the present key/values back as past — plus the same
// greedy decoding without a cache (the cache-free truth the worker's continuous batching is checked
// against) and a left-padded batched variant, to check the graph against itself and against
// transformers.js. A captioner's decoder runs the same way, with the encoder's states as context
// fed unchanged at every step.
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { GPT2_END_OF_TEXT } from '@modelgate/fixtures';
import { type FixtureSpec } from '@modelgate/fixtures';
import { DECODER_MODEL_FILE, MODEL_FILE } from '@modelgate/fixtures';
import { cacheNames } from '@modelgate/fixtures';

/** Past key/values by input name (past_key_values.N.key/value). */
export type Cache = Record<string, ort.Tensor>;

/** Inputs fed unchanged at every step, by name: a captioner's encoder_hidden_states [batch, positions, width]. */
export type ContextFeeds = Record<string, ort.Tensor>;

/** Logits [batch, sequence, vocab] and the present cache of one step. */
export interface StepResult {
  logits: Float32Array;
  sequence: number;
  cache: Cache;
}

/**
 * Index of the highest value of logits[offset .. offset + size); lowest index on ties. Its own copy,
 * not @modelgate/generation's: the reference shares no code with what it checks.
 */
function argmax(logits: Float32Array, offset: number, size: number): number {
  let best = 0;
  for (let i = 1; i < size; i += 1) if ((logits[offset + i] ?? 0) > (logits[offset + best] ?? 0)) best = i;
  return best;
}

function int64(rows: readonly (readonly number[])[]): ort.Tensor {
  const width = rows[0]?.length ?? 0;
  return new ort.Tensor('int64', BigInt64Array.from(rows.flat().map(BigInt)), [rows.length, width]);
}

/** A GPT-2 (or captioner's decoder) fixture session with step, greedy and batched helpers. */
export class DecoderSession {
  private constructor(
    readonly session: ort.InferenceSession,
    private readonly spec: FixtureSpec,
  ) {}

  /** Opens onnx/model.onnx of the fixture directory (a vision-encoder-decoder's onnx/decoder_model_merged.onnx). */
  static async open(dir: string, spec: FixtureSpec): Promise<DecoderSession> {
    const file = spec.architecture === 'vision-encoder-decoder' ? DECODER_MODEL_FILE : MODEL_FILE;
    return new DecoderSession(await ort.InferenceSession.create(join(dir, file)), spec);
  }

  /** A cache with past_sequence_length 0, as the first step feeds it. */
  emptyCache(batch: number): Cache {
    const dims = [batch, this.spec.numHeads, 0, this.spec.hiddenSize / this.spec.numHeads];
    const cache: Cache = {};
    for (let layer = 0; layer < this.spec.numLayers; layer += 1) {
      const { pastKey, pastValue } = cacheNames(layer);
      cache[pastKey] = new ort.Tensor('float32', new Float32Array(0), dims);
      cache[pastValue] = new ort.Tensor('float32', new Float32Array(0), dims);
    }
    return cache;
  }

  /** Runs one step: ids and positions [batch, seq], mask [batch, past + seq], context of the same batch. */
  async step(
    ids: readonly (readonly number[])[],
    mask: readonly (readonly number[])[],
    positions: readonly (readonly number[])[],
    past: Cache,
    context: ContextFeeds = {},
  ): Promise<StepResult> {
    const results = await this.session.run({
      input_ids: int64(ids),
      attention_mask: int64(mask),
      position_ids: int64(positions),
      ...context,
      ...past,
    });
    const cache: Cache = {};
    for (let layer = 0; layer < this.spec.numLayers; layer += 1) {
      const names = cacheNames(layer);
      cache[names.pastKey] = results[names.presentKey] as ort.Tensor;
      cache[names.pastValue] = results[names.presentValue] as ort.Tensor;
    }
    const logits = results.logits as ort.Tensor;
    return { logits: logits.data as Float32Array, sequence: ids[0]?.length ?? 0, cache };
  }

  /** The greedy pick of each row's last position. */
  lastTokens(result: StepResult, batch: number): number[] {
    const vocab = this.spec.vocabSize;
    return Array.from({ length: batch }, (_, row) =>
      argmax(result.logits, (row * result.sequence + result.sequence - 1) * vocab, vocab),
    );
  }

  /** Greedy decoding with the KV cache: prefill the prompt, then feed one token per step. Stops after eos. */
  async greedyCached(
    prompt: readonly number[],
    maxNewTokens: number,
    context: ContextFeeds = {},
  ): Promise<number[]> {
    const generated: number[] = [];
    let result = await this.step(
      [prompt],
      [prompt.map(() => 1)],
      [prompt.map((_, i) => i)],
      this.emptyCache(1),
      context,
    );
    for (;;) {
      const [next = 0] = this.lastTokens(result, 1);
      generated.push(next);
      if (next === GPT2_END_OF_TEXT.id || generated.length === maxNewTokens) return generated;
      const length = prompt.length + generated.length;
      const mask = [Array.from({ length }, () => 1)];
      result = await this.step([[next]], mask, [[length - 1]], result.cache, context);
    }
  }

  /** Greedy decoding without a cache: the whole sequence is run again at every step. */
  greedyUncached(
    prompt: readonly number[],
    maxNewTokens: number,
    context: ContextFeeds = {},
  ): Promise<number[]> {
    return this.greedyProcessed(prompt, maxNewTokens, () => undefined, context);
  }

  /**
   * Greedy decoding without a cache where `process` may change each step's last-position logits
   * (a copy, over the vocabulary) before the pick, given the tokens generated so far. Stops after eos.
   */
  async greedyProcessed(
    prompt: readonly number[],
    maxNewTokens: number,
    process: (row: Float32Array, generated: readonly number[]) => void,
    context: ContextFeeds = {},
  ): Promise<number[]> {
    const vocab = this.spec.vocabSize;
    const sequence = [...prompt];
    const generated: number[] = [];
    while (generated.length < maxNewTokens) {
      const result = await this.step(
        [sequence],
        [sequence.map(() => 1)],
        [sequence.map((_, i) => i)],
        this.emptyCache(1),
        context,
      );
      const offset = (result.sequence - 1) * vocab;
      const row = result.logits.slice(offset, offset + vocab);
      process(row, generated);
      const next = argmax(row, 0, vocab);
      generated.push(next);
      sequence.push(next);
      if (next === GPT2_END_OF_TEXT.id) break;
    }
    return generated;
  }

  /**
   * Greedy decoding of several prompts in one batch: left-padded prefill (padding masked out,
   * positions counting real tokens only), then one token per row per step with the shared cache.
   * Returns each row's generated ids (no early stop) and the prefill's last-position logits.
   * `context` holds one row per prompt (a captioner's encoder states of each prompt's image).
   */
  async greedyBatched(
    prompts: readonly (readonly number[])[],
    steps: number,
    context: ContextFeeds = {},
  ): Promise<{ generated: number[][]; prefillLogits: Float32Array[] }> {
    const width = Math.max(...prompts.map((prompt) => prompt.length));
    const pads = prompts.map((prompt) => width - prompt.length);
    const ids = prompts.map((prompt, row) => [
      ...Array<number>(pads[row] ?? 0).fill(GPT2_END_OF_TEXT.id),
      ...prompt,
    ]);
    const mask = pads.map((pad) => Array.from({ length: width }, (_, i) => (i < pad ? 0 : 1)));
    const positions = pads.map((pad) => Array.from({ length: width }, (_, i) => Math.max(0, i - pad)));
    let result = await this.step(ids, mask, positions, this.emptyCache(prompts.length), context);
    const vocab = this.spec.vocabSize;
    const prefillLogits = prompts.map((_, row) =>
      result.logits.slice((row * width + width - 1) * vocab, (row * width + width) * vocab),
    );
    const generated = prompts.map((): number[] => []);
    for (let step = 0; step < steps; step += 1) {
      const next = this.lastTokens(result, prompts.length);
      next.forEach((token, row) => generated[row]?.push(token));
      if (step === steps - 1) break;
      mask.forEach((row) => row.push(1));
      const stepPositions = prompts.map((prompt, row) => [prompt.length + (generated[row]?.length ?? 0) - 1]);
      result = await this.step(
        next.map((token) => [token]),
        mask,
        stepPositions,
        result.cache,
        context,
      );
    }
    return { generated, prefillLogits };
  }

  /**
   * The log-softmax (in doubles) of the logits that chose each of `generated` after `prompt`: one
   * cache-free run over the whole sequence, row i being the distribution generated[i] came from.
   */
  async stepLogprobs(prompt: readonly number[], generated: readonly number[]): Promise<Float64Array[]> {
    const vocab = this.spec.vocabSize;
    const sequence = [...prompt, ...generated];
    const result = await this.step(
      [sequence],
      [sequence.map(() => 1)],
      [sequence.map((_, i) => i)],
      this.emptyCache(1),
    );
    return generated.map((_, i) => {
      const offset = (prompt.length - 1 + i) * vocab;
      const row = Float64Array.from(result.logits.subarray(offset, offset + vocab));
      const max = row.reduce((a, b) => Math.max(a, b), -Infinity);
      const norm = max + Math.log(row.reduce((sum, logit) => sum + Math.exp(logit - max), 0));
      return row.map((logit) => logit - norm);
    });
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
