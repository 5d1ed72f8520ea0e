import { type InferenceSession } from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BATCH_DIM,
  FIXTURE_NAMES,
  SEQUENCE_DIM,
  ensureFixture,
  getFixtureSpec,
  modelInputNames,
  modelOutputs,
} from '../src/index.js';
import {
  type EncodedText,
  encodeText,
  loadFixtureTokenizer,
  maxAbsDiff,
  openFixtureSession,
  rowsOf,
  runTexts,
} from './fixture-session.js';

const TEXTS = [
  'hello world',
  'I love this movie, it was great!',
  'terrible, awful film',
  "Héllo, wörld! The naïve café's zxqvbn-ish blueberries.",
  'a',
];

// Text encoders only: the decoders have gpt2-fixture.int-spec.ts (gpt2-merged-fixture.int-spec.ts),
// tiny-vit vit-fixture.int-spec.ts, the captioner vit-gpt2-fixture.int-spec.ts.
const ENCODER_NAMES = FIXTURE_NAMES.filter(
  (name) => !['gpt2', 'vit', 'vision-encoder-decoder'].includes(getFixtureSpec(name).architecture),
);

describe.each(ENCODER_NAMES)('fixture %s in onnxruntime', (name) => {
  const spec = getFixtureSpec(name);
  let session: InferenceSession;
  let encoded: EncodedText[];

  beforeAll(async () => {
    const dir = await ensureFixture(name);
    const tokenizer = await loadFixtureTokenizer(dir);
    encoded = TEXTS.map((text) => encodeText(tokenizer, text));
    session = await openFixtureSession(dir);
  });
  afterAll(async () => {
    await session?.release();
  });

  it('declares int64 [batch_size, sequence_length] inputs and the expected output', () => {
    expect(session.inputNames).toEqual(modelInputNames(spec));
    for (const input of session.inputMetadata) {
      expect(input).toMatchObject({ isTensor: true, type: 'int64', shape: [BATCH_DIM, SEQUENCE_DIM] });
    }
    const outputs = modelOutputs(spec);
    expect(session.outputNames).toEqual(outputs.map((output) => output.name));
    outputs.forEach((output, i) =>
      expect(session.outputMetadata[i]).toMatchObject({
        isTensor: true,
        type: 'float32',
        shape: output.dims,
      }),
    );
  });

  it('returns finite outputs of the declared shape for a padded batch', async () => {
    const output = await runTexts(session, encoded);
    const sequence = Math.max(...encoded.map((text) => text.ids.length));
    // The first output: logits, last_hidden_state, or a span head's start_logits.
    const expectedDims =
      spec.head.kind === 'sequence-classification'
        ? [TEXTS.length, spec.head.labels.length]
        : spec.head.kind === 'question-answering'
          ? [TEXTS.length, sequence]
          : spec.head.kind === 'token-classification'
            ? [TEXTS.length, sequence, spec.head.labels.length]
            : [TEXTS.length, sequence, spec.hiddenSize];
    expect(output.dims).toEqual(expectedDims);
    expect(output.data.every((value) => Number.isFinite(value))).toBe(true);
  });

  it('gives each text of a padded batch the output it gets alone', async () => {
    const batched = rowsOf(await runTexts(session, encoded));
    for (const [i, text] of encoded.entries()) {
      const alone = (await runTexts(session, [text])).data;
      const row = batched[i] ?? new Float32Array();
      if (spec.head.kind === 'sequence-classification') expect(row.length).toBe(alone.length);
      // last_hidden_state: only the real tokens compare; rows at padded positions are meaningless.
      expect(maxAbsDiff(row.subarray(0, alone.length), alone)).toBeLessThan(1e-5);
    }
  });

  it('gives different texts visibly different outputs', async () => {
    const rows = rowsOf(await runTexts(session, encoded.slice(0, 3)));
    const [first, second, third] = rows.map((row) => row.subarray(0, spec.hiddenSize));
    expect(maxAbsDiff(first ?? [], second ?? [])).toBeGreaterThan(0.1);
    expect(maxAbsDiff(second ?? [], third ?? [])).toBeGreaterThan(0.1);
  });
});

describe('fixture tiny-bert-sst2-external', () => {
  it('gives exactly the outputs of tiny-bert-sst2, its weights read from onnx/model.onnx_data', async () => {
    const [inline, external] = await Promise.all([
      ensureFixture('tiny-bert-sst2'),
      ensureFixture('tiny-bert-sst2-external'),
    ]);
    const tokenizer = await loadFixtureTokenizer(inline);
    const encoded = TEXTS.map((text) => encodeText(tokenizer, text));
    const [a, b] = await Promise.all([openFixtureSession(inline), openFixtureSession(external)]);
    try {
      const [expected, actual] = [await runTexts(a, encoded), await runTexts(b, encoded)];
      expect(actual.dims).toEqual(expected.dims);
      expect(maxAbsDiff(actual.data, expected.data)).toBe(0);
    } finally {
      await Promise.all([a.release(), b.release()]);
    }
  });
});
