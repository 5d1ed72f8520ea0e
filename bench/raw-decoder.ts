/**
 * Greedy decoding of a Hugging Face GPT-2 ONNX export *with past* on raw onnxruntime-node, the way
 * a user without a serving stack would write it: one batch of sequences, left-padded (attention
 * mask 0 on the pads, positions counted from each row's first real token), prefilled in one run,
 * then one run per new token feeding `present.*` back as `past_key_values.*`, until every row has
 * its max_new_tokens or an EOS. The whole batch runs until its longest row ends (finished rows keep
 * their slot). A batch of one is "one request at a time".
 */
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { argmax } from '@modelgate/generation';
import { sessionOptions } from '@modelgate/session-settings';

/** The config.json facts the loop needs. */
interface DecoderShape {
  layers: number;
  heads: number;
  headDim: number;
  vocabSize: number;
  eosIds: number[];
}

/** One row of a batch. */
export interface DecodeRow {
  promptIds: readonly number[];
  maxNewTokens: number;
}

/** What the caller hears while a batch runs (row = index into the batch). */
export interface DecodeListener {
  /** The row's first generated token was picked (after the prefill run). */
  firstToken(row: number): void;
  /** The row generated its last token; `tokens` are all it generated. */
  finished(row: number, tokens: readonly number[]): void;
}

async function readShape(fixtureDir: string): Promise<DecoderShape> {
  const config = JSON.parse(await readFile(join(fixtureDir, 'config.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const number = (key: string) => {
    const value = config[key];
    if (typeof value !== 'number') throw new Error(`config.json of ${fixtureDir} has no numeric ${key}`);
    return value;
  };
  const eos = config.eos_token_id;
  const heads = number('n_head');
  return {
    layers: number('n_layer'),
    heads,
    headDim: number('n_embd') / heads,
    vocabSize: number('vocab_size'),
    eosIds: Array.isArray(eos) ? eos.map(Number) : typeof eos === 'number' ? [eos] : [],
  };
}

const int64 = (values: number[], dims: number[]) =>
  new ort.Tensor(
    'int64',
    BigInt64Array.from(values, (v) => BigInt(v)),
    dims,
  );

/** A loaded decoder session. */
export class RawDecoder {
  private constructor(
    private readonly session: ort.InferenceSession,
    private readonly shape: DecoderShape,
    private readonly hasPositionIds: boolean,
  ) {}

  /** Loads onnx/model.onnx of `fixtureDir` with the worker's session settings. */
  static async load(fixtureDir: string, intraOpThreads: number): Promise<RawDecoder> {
    const shape = await readShape(fixtureDir);
    const threads = intraOpThreads > 0 ? intraOpThreads : availableParallelism();
    const session = await ort.InferenceSession.create(
      join(fixtureDir, 'onnx', 'model.onnx'),
      sessionOptions([{ name: 'cpu' }], { intraOpThreads: threads }),
    );
    return new RawDecoder(session, shape, session.inputNames.includes('position_ids'));
  }

  /** Generates every row of `rows` to its end as one static batch. */
  async generate(rows: readonly DecodeRow[], listener: DecodeListener): Promise<void> {
    const { layers, heads, headDim, vocabSize, eosIds } = this.shape;
    const batch = rows.length;
    const width = Math.max(...rows.map((r) => r.promptIds.length));
    const pads = rows.map((r) => width - r.promptIds.length);
    const padId = eosIds[0] ?? 0;
    const feeds: Record<string, ort.Tensor> = {};
    for (let layer = 0; layer < layers; layer++) {
      for (const kind of ['key', 'value']) {
        feeds[`past_key_values.${layer}.${kind}`] = new ort.Tensor('float32', new Float32Array(0), [
          batch,
          heads,
          0,
          headDim,
        ]);
      }
    }
    feeds.input_ids = int64(
      rows.flatMap((r, i) => [...Array<number>(pads[i] ?? 0).fill(padId), ...r.promptIds]),
      [batch, width],
    );
    let length = width;
    const maskOf = (len: number) =>
      int64(
        rows.flatMap((_, i) => Array.from({ length: len }, (_, j) => (j < (pads[i] ?? 0) ? 0 : 1))),
        [batch, len],
      );
    feeds.attention_mask = maskOf(length);
    if (this.hasPositionIds) {
      feeds.position_ids = int64(
        rows.flatMap((_, i) => Array.from({ length: width }, (_, j) => Math.max(0, j - (pads[i] ?? 0)))),
        [batch, width],
      );
    }
    const tokens: number[][] = rows.map(() => []);
    const done = rows.map(() => false);
    const last = rows.map(() => padId);
    let stepInputs = width;
    for (;;) {
      const out = await this.session.run(feeds);
      const logits = out.logits?.data as Float32Array;
      for (let i = 0; i < batch; i++) {
        if (done[i]) continue;
        const token = argmax(logits, (i * stepInputs + stepInputs - 1) * vocabSize, vocabSize);
        last[i] = token;
        const own = tokens[i] ?? [];
        own.push(token);
        if (own.length === 1) listener.firstToken(i);
        if (eosIds.includes(token) || own.length >= (rows[i]?.maxNewTokens ?? 0)) {
          done[i] = true;
          listener.finished(i, own);
        }
      }
      if (done.every(Boolean)) return;
      for (let layer = 0; layer < layers; layer++) {
        for (const kind of ['key', 'value']) {
          const present = out[`present.${layer}.${kind}`];
          if (present === undefined) throw new Error(`the model has no output present.${layer}.${kind}`);
          feeds[`past_key_values.${layer}.${kind}`] = present;
        }
      }
      feeds.input_ids = int64(last, [batch, 1]);
      length += 1;
      feeds.attention_mask = maskOf(length);
      if (this.hasPositionIds) {
        // The new token's position: the real tokens before it (the prompt plus the tokens generated so far but the last).
        feeds.position_ids = int64(
          rows.map((r, i) => r.promptIds.length + (tokens[i]?.length ?? 0) - 1),
          [batch, 1],
        );
      }
      stepInputs = 1;
    }
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
