import { ModelgateError, parseEndpointSpec, parseModelSpec } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { teiEmbeddings, teiInfo, teiPrediction, teiTokens } from './tei-answers.js';

describe('TEI answers', () => {
  it('cuts embeddings to `dimensions`, then normalizes them when asked', () => {
    const predictions = [{ embedding: [3, 4, 12] }, { embedding: [0, 0, 0] }];
    expect(teiEmbeddings(predictions, { serveBody: { text: [], parameters: {} }, normalize: false })).toEqual(
      [
        [3, 4, 12],
        [0, 0, 0],
      ],
    );
    expect(
      teiEmbeddings(predictions, { serveBody: { text: [], parameters: {} }, normalize: true, dimensions: 2 }),
    ).toEqual([
      [0.6, 0.8],
      [0, 0],
    ]);
    expect(() =>
      teiEmbeddings(predictions, { serveBody: { text: [], parameters: {} }, normalize: true, dimensions: 4 }),
    ).toThrow(ModelgateError);
  });

  it('answers labels as {score, label}, in the order given', () => {
    expect(
      teiPrediction([
        { label: 'POSITIVE', score: 0.9 },
        { label: 'NEGATIVE', score: 0.1 },
      ]),
    ).toEqual([
      { score: 0.9, label: 'POSITIVE' },
      { score: 0.1, label: 'NEGATIVE' },
    ]);
  });

  it('gives tokens their slice of the text and UTF-8 byte offsets, special tokens their own text', () => {
    const text = 'café 🚀!';
    const tokens = teiTokens(text, {
      ids: [101, 7, 8, 9, 102],
      tokens: ['[CLS]', 'cafe', '[UNK]', '!', '[SEP]'],
      offsets: [null, [0, 4], [5, 6], [6, 7], null],
      sequence_ids: [null, 0, 0, 0, null],
    });
    expect(tokens).toEqual([
      { id: 101, text: '[CLS]', special: true, start: null, stop: null },
      { id: 7, text: 'café', special: false, start: 0, stop: 5 },
      { id: 8, text: '🚀', special: false, start: 6, stop: 10 },
      { id: 9, text: '!', special: false, start: 10, stop: 11 },
      { id: 102, text: '[SEP]', special: true, start: null, stop: null },
    ]);
    expect(Buffer.from(text).subarray(6, 10).toString()).toBe('🚀');
  });

  it("describes an endpoint as TEI's /info: the model type by task, the limits from the specs", () => {
    const endpoint = parseEndpointSpec({
      name: 'sentiment',
      task: 'text-classification',
      routes: [{ model: 'bert:1', weight: 100, role: 'primary' }],
      preprocessing: { maxBatchItems: 8, truncation: true },
    });
    const model = parseModelSpec({
      id: 'bert:1',
      name: 'bert',
      version: '1',
      task: 'text-classification',
      artifact: { uri: 'file:///m/model.onnx', sha256: 'a'.repeat(64) },
      tokenizer: { uri: 'file:///m/tokenizer', sha256: 'b'.repeat(64) },
      batching: { maxBatchSize: 16, maxQueueSize: 64 },
    });
    const info = teiInfo(endpoint, model, {
      maxInputLength: 512,
      labels: ['NEGATIVE', 'POSITIVE'],
      tokenizationWorkers: 2,
    });
    expect(info).toMatchObject({
      model_id: 'bert:1',
      served_model_name: 'sentiment',
      model_type: {
        classifier: { id2label: { 0: 'NEGATIVE', 1: 'POSITIVE' }, label2id: { NEGATIVE: 0, POSITIVE: 1 } },
      },
      max_concurrent_requests: 64,
      max_input_length: 512,
      max_batch_requests: 16,
      max_client_batch_size: 8,
      auto_truncate: true,
      tokenization_workers: 2,
    });
  });
});
