// End to end in-process: parseServeRequest → encodeInputs → onnxruntime (as a worker runs it) →
// classify / embed must equal transformers' pipeline() on the same fixture directory (DESIGN §5).
import { dirname } from 'node:path';
import {
  AutoTokenizer,
  type FeatureExtractionPipeline,
  type PreTrainedTokenizer,
  type TextClassificationPipeline,
  env,
  pipeline,
} from '@huggingface/transformers';
import { ensureFixture } from '@modelgate/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ClassScore,
  type TextTokenizer,
  classify,
  embed,
  encodeInputs,
  loadTokenizerFromDir,
  parseServeRequest,
  resolveClassifyOptions,
} from '../src/index.js';
import { type FixtureModel, openFixtureModel } from './onnx-session.js';

const TOLERANCE = 1e-4;
const TEXTS = [
  'I love this movie, it was great!',
  'terrible, awful film',
  "Héllo, wörld! The naïve café's zxqvbn-ish blueberries.",
  'ok',
  'CJK: 我爱自然语言处理 and emoji 🤗🚀',
];
const LIMITS = { maxInputChars: 20000, maxBatchItems: 64, truncation: true };

env.allowRemoteModels = false;
env.allowLocalModels = true;

interface Served {
  dir: string;
  tokenizer: TextTokenizer;
  model: FixtureModel;
}

async function serve(name: string): Promise<Served> {
  const dir = await ensureFixture(name);
  env.localModelPath = dirname(dir);
  return { dir, tokenizer: await loadTokenizerFromDir(dir), model: await openFixtureModel(dir) };
}

/** What the gateway answers for a serve body: one list of labels per input. */
async function ourClassification(served: Served, body: unknown): Promise<ClassScore[][]> {
  const request = parseServeRequest(body, LIMITS, { task: 'text-classification' });
  const { tensors } = encodeInputs({
    ...request,
    tokenizer: served.tokenizer,
    inputNames: served.model.inputNames,
  });
  const logits = await served.model.run(tensors);
  return classify(
    logits.data,
    logits.dims,
    resolveClassifyOptions({ requestTopK: request.topK, modelConfig: served.tokenizer.modelConfig }),
  );
}

function expectSameScores(actual: ClassScore[], expected: ClassScore[]): void {
  expect(actual.map((s) => s.label)).toEqual(expected.map((s) => s.label));
  actual.forEach((score, i) =>
    expect(Math.abs(score.score - (expected[i]?.score ?? NaN))).toBeLessThan(TOLERANCE),
  );
}

describe.each(['tiny-bert-sst2', 'tiny-distilbert-sst2', 'tiny-bert-multilabel'])(
  'text-classification on %s',
  (name) => {
    let served: Served;
    let reference: TextClassificationPipeline;
    const multiLabel = name === 'tiny-bert-multilabel';

    beforeAll(async () => {
      served = await serve(name);
      reference = await pipeline('text-classification', name, {
        dtype: 'fp32',
        local_files_only: true,
      });
    });

    afterAll(async () => {
      await served.model.release();
      await reference.dispose();
    });

    it('declares the inputs the gateway builds', () => {
      const expected =
        name === 'tiny-distilbert-sst2'
          ? ['input_ids', 'attention_mask']
          : ['input_ids', 'attention_mask', 'token_type_ids'];
      expect([...served.model.inputNames].sort()).toEqual(expected.sort());
    });

    it.each(TEXTS)('scores a single text like the pipeline: %j', async (text) => {
      const [ours = []] = await ourClassification(served, { text });
      // The pipeline's own default is top_k 1; for a multi-label model we return every label by default.
      const expected = multiLabel
        ? (((await reference([text], { top_k: null })) as ClassScore[][])[0] ?? [])
        : ((await reference([text])) as ClassScore[]);
      expectSameScores(ours, expected);
      expect(ours).toHaveLength(multiLabel ? 4 : 1);
    });

    it('scores a padded batch exactly as one text at a time, with top_k', async () => {
      const ours = await ourClassification(served, { text: TEXTS, parameters: { top_k: 2 } });
      const expected = (await reference(TEXTS, { top_k: 2 })) as ClassScore[][];
      expect(ours).toHaveLength(TEXTS.length);
      ours.forEach((row, i) => expectSameScores(row, expected[i] ?? []));
    });

    it(
      multiLabel ? 'uses sigmoid scores that need not sum to 1' : 'uses softmax scores that sum to 1',
      async () => {
        const [row = []] = await ourClassification(served, { text: TEXTS[0], parameters: { top_k: 10 } });
        const sum = row.reduce((total, s) => total + s.score, 0);
        if (multiLabel) expect(Math.abs(sum - 1)).toBeGreaterThan(1e-3);
        else expect(sum).toBeCloseTo(1, 5);
      },
    );
  },
);

describe('sentence pairs on tiny-bert-sst2', () => {
  let served: Served;
  let tokenizer: PreTrainedTokenizer;

  beforeAll(async () => {
    served = await serve('tiny-bert-sst2');
    tokenizer = await AutoTokenizer.from_pretrained('tiny-bert-sst2', { local_files_only: true });
  });

  afterAll(() => served.model.release());

  it('scores a batch of pairs like the model run on transformers pair encodings', async () => {
    const texts = ['hello', 'Is it any good?', 'naïve'];
    const pairs = ['world', 'Yes, great 🤗.', 'café au lait, s’il vous plaît'];
    const ours = await ourClassification(served, { text: texts, text_pair: pairs, parameters: { top_k: 2 } });
    for (const [i, text] of texts.entries()) {
      const encoded = tokenizer(text, { text_pair: pairs[i] ?? null, return_tensor: false });
      const row = (values: number[]): BigInt64Array => BigInt64Array.from(values, (v) => BigInt(v));
      const dims: [number, number] = [1, encoded.input_ids.length];
      const logits = await served.model.run({
        input_ids: { datatype: 'INT64', dims, data: row(encoded.input_ids) },
        attention_mask: { datatype: 'INT64', dims, data: row(encoded.attention_mask) },
        token_type_ids: { datatype: 'INT64', dims, data: row(encoded.token_type_ids ?? []) },
      });
      const expected = classify(logits.data, logits.dims, {
        labels: served.tokenizer.modelConfig.labels,
        topK: 2,
      });
      expectSameScores(ours[i] ?? [], expected[0] ?? []);
    }
  });
});

describe('feature-extraction on tiny-bert-embedder', () => {
  let served: Served;
  let reference: FeatureExtractionPipeline;

  beforeAll(async () => {
    served = await serve('tiny-bert-embedder');
    reference = await pipeline('feature-extraction', 'tiny-bert-embedder', {
      dtype: 'fp32',
      local_files_only: true,
    });
  });

  afterAll(async () => {
    await served.model.release();
    await reference.dispose();
  });

  async function ourEmbeddings(
    texts: string[],
    pooling: 'mean' | 'cls',
    normalize: boolean,
  ): Promise<number[][]> {
    const { tensors } = encodeInputs({
      texts,
      tokenizer: served.tokenizer,
      inputNames: served.model.inputNames,
      truncation: true,
    });
    const hidden = await served.model.run(tensors);
    expect(hidden.dims).toEqual([texts.length, tensors.input_ids?.dims[1], 128]);
    return embed(hidden.data, hidden.dims, tensors.attention_mask?.data, { pooling, normalize });
  }

  it.each([
    ['mean', true],
    ['mean', false],
    ['cls', true],
  ] as const)('%s-pools (normalize %s) a padded batch like the pipeline', async (pooling, normalize) => {
    const ours = await ourEmbeddings(TEXTS, pooling, normalize);
    const expected = (await reference(TEXTS, { pooling, normalize })).tolist() as number[][];
    expect(ours).toHaveLength(TEXTS.length);
    ours.forEach((vector, i) => {
      const row = expected[i] ?? [];
      expect(vector).toHaveLength(128);
      vector.forEach((value, h) => expect(Math.abs(value - (row[h] ?? NaN))).toBeLessThan(TOLERANCE));
    });
    if (normalize) ours.forEach((vector) => expect(Math.hypot(...vector)).toBeCloseTo(1, 5));
  });
});
