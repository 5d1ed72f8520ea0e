import { join } from 'node:path';
import { ensureFixture } from '@modelgate/fixtures';
import { maxAbsDiff, tokenRows, unbatchedOutputs } from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as Adapter from '../src/model-loading/onnx-session.adapter.js';

// The built adapter (npm test builds first): its session thread is a compiled module next to it.
// Imported by a path held in a variable so that typechecking does not need a build.
const builtAdapter = '../dist/model-loading/onnx-session.adapter.js';

describe('onnx session thread: buffer ownership across the thread boundary', () => {
  let session: Adapter.OnnxSession;
  let modelPath: string;
  const row = tokenRows(1, 5, 12, 12)[0]!;

  beforeAll(async () => {
    modelPath = join(await ensureFixture('tiny-bert-sst2'), 'onnx', 'model.onnx');
    const { openOnnxSession } = (await import(builtAdapter)) as typeof Adapter;
    session = await openOnnxSession(modelPath, { providers: [{ name: 'cpu' }] } as never, {
      intraOpThreads: 1,
    });
  });

  afterAll(async () => {
    await session?.release();
  });

  const feedsFrom = (ids: BigInt64Array, mask: BigInt64Array, types: BigInt64Array) => ({
    input_ids: { datatype: 'INT64', dims: [1, row.length], data: ids },
    attention_mask: { datatype: 'INT64', dims: [1, row.length], data: mask },
    token_type_ids: { datatype: 'INT64', dims: [1, row.length], data: types },
  });

  it('copies inputs that are views into a larger buffer, leaving that buffer whole and usable', async () => {
    // One buffer holding all three tensors plus unrelated bytes, as a gRPC message would.
    const message = new BigInt64Array(3 * row.length + 7).fill(42n);
    const ids = message.subarray(0, row.length);
    ids.set(row.map(BigInt));
    const mask = message.subarray(row.length, 2 * row.length).fill(1n);
    const types = message.subarray(2 * row.length, 3 * row.length).fill(0n);
    const [truth] = await unbatchedOutputs(modelPath, [row], 'logits');
    const run = await session.run(feedsFrom(ids, mask, types));
    expect(message.buffer.byteLength).toBe((3 * row.length + 7) * 8); // not detached
    expect(message.at(-1)).toBe(42n);
    expect(maxAbsDiff(run.outputs.logits!.data as Float32Array, truth!)).toBeLessThan(1e-5);
    expect(run.runMicros).toBeGreaterThan(0);
  });

  it('transfers inputs that own their buffer instead of cloning them, and hands outputs over whole', async () => {
    const ids = BigInt64Array.from(row.map(BigInt));
    const mask = new BigInt64Array(row.length).fill(1n);
    const types = new BigInt64Array(row.length);
    const run = await session.run(feedsFrom(ids, mask, types));
    expect(ids.buffer.byteLength).toBe(0); // moved to the session thread: the caller must not reuse it
    expect(mask.length).toBe(0);
    const logits = run.outputs.logits!.data as Float32Array;
    expect(logits.length).toBe(2);
    expect(logits.buffer.byteLength).toBe(logits.byteLength); // a buffer of its own, not a clone of more
  });
});
