import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { resolveBatchLimits } from '@modelgate/batching';
import { describe, expect, it } from 'vitest';
import {
  type OnnxSession,
  type SessionRun,
  type WorkerTensor,
} from '../model-loading/onnx-session.adapter.js';
import { planTransfer } from '../model-loading/tensor-transfer.js';
import { ModelRunner } from './model-runner.js';

const ROW = 4; // pixel_values [n, 4]

/**
 * A session that takes its feeds the way the real adapter does (planTransfer, then postMessage to
 * another thread's port) and answers logits [n, 1] = the sum of each row's pixels, from what
 * crossed. It records the array each run was given.
 */
function crossingSession(): OnnxSession & { given: WorkerTensor['data'][]; batchRows: number[] } {
  const given: WorkerTensor['data'][] = [];
  const batchRows: number[] = [];
  return {
    given,
    batchRows,
    inputs: [{ name: 'pixel_values', datatype: 'FP32', dims: [-1, ROW] }],
    outputs: [{ name: 'logits', datatype: 'FP32', dims: [-1, 1] }],
    spinsWithinRuns: false,
    lostReason: undefined,
    run(feeds): Promise<SessionRun> {
      const feed = feeds.pixel_values;
      if (!feed) throw new Error('no pixel_values');
      given.push(feed.data);
      batchRows.push(feed.dims[0] ?? 0);
      const { tensors, transfer } = planTransfer(feeds);
      const { port1, port2 } = new MessageChannel();
      port1.postMessage(tensors, transfer);
      const received = receiveMessageOnPort(port2)?.message as Record<string, WorkerTensor>;
      port1.close();
      const pixels = received.pixel_values?.data as Float32Array;
      const rows = pixels.length / ROW;
      const logits = new Float32Array(rows);
      for (let row = 0; row < rows; row++) {
        for (let at = row * ROW; at < (row + 1) * ROW; at++)
          logits[row] = (logits[row] ?? 0) + (pixels[at] ?? 0);
      }
      return Promise.resolve({
        outputs: { logits: { datatype: 'FP32', dims: [rows, 1], data: logits } },
        runMicros: 1,
      });
    },
    generate: () => undefined,
    onGeneration: () => undefined,
    crashForTest: () => undefined,
    release: () => Promise.resolve(),
  };
}

const pixels = (rows: number, first: number): WorkerTensor => ({
  datatype: 'FP32',
  dims: [rows, ROW],
  data: Float32Array.from({ length: rows * ROW }, (_, index) => first + index),
});

/** A runner whose batches wait for `maxBatchSize` rows (the delay never runs out in these tests). */
const runner = (session: OnnxSession, maxBatchSize: number) =>
  new ModelRunner(
    'vit:1',
    [session],
    resolveBatchLimits({
      maxBatchSize,
      preferredBatchSizes: [maxBatchSize],
      maxQueueDelayMicros: 10_000_000,
    }),
  );

describe('ModelRunner buffer ownership', () => {
  it('feeds a lone one-row request to the session as it came, with no batch copy', async () => {
    const session = crossingSession();
    const request = pixels(1, 1);
    const result = await runner(session, 1).infer({ pixel_values: request }, 1, undefined);
    // The row is a view over all of the request's buffer: that very buffer was handed over.
    expect((session.given[0] as Float32Array).buffer === (request.data as Float32Array).buffer).toBe(true);
    expect((request.data as Float32Array).length).toBe(0);
    expect(Array.from(result.outputs.logits?.data as Float32Array)).toEqual([1 + 2 + 3 + 4]);
  });

  it("runs each row of a request in its own batch from the request's buffer, intact for every row", async () => {
    const session = crossingSession();
    const request = pixels(3, 0);
    const result = await runner(session, 1).infer({ pixel_values: request }, 3, undefined);
    expect(session.given).toHaveLength(3);
    // Every row's view shares the request's buffer: each crossed as a copy, none took the buffer.
    expect((request.data as Float32Array).length).toBe(3 * ROW);
    expect(Array.from(result.outputs.logits?.data as Float32Array)).toEqual([6, 22, 38]);
  });

  it('stacks rows of several requests into a new batch and answers each its own', async () => {
    const session = crossingSession();
    const model = runner(session, 3);
    const first = pixels(1, 0);
    const second = pixels(2, 100);
    // The first call finds the instance idle and runs alone; the next two queue behind it.
    const [, a, b] = await Promise.all([
      model.infer({ pixel_values: pixels(1, 0) }, 1, undefined),
      model.infer({ pixel_values: first }, 1, undefined),
      model.infer({ pixel_values: second }, 2, undefined),
    ]);
    expect(Array.from(a?.outputs.logits?.data as Float32Array)).toEqual([6]);
    expect(Array.from(b?.outputs.logits?.data as Float32Array)).toEqual([406, 422]);
    expect(session.batchRows).toEqual([1, 3]);
    // The callers' buffers stay theirs: only the new batch arrays were handed over.
    expect(Array.from(first.data as Float32Array)).toEqual([0, 1, 2, 3]);
    expect((second.data as Float32Array).length).toBe(2 * ROW);
  });
});

describe('ModelRunner with a row onnxruntime refuses', () => {
  /** crossingSession, except that a batch holding a NaN pixel fails as onnxruntime would. */
  const refusingSession = () => {
    const session = crossingSession();
    const run = session.run.bind(session);
    session.run = (feeds) => {
      const data = feeds.pixel_values?.data as Float32Array;
      if (data.some(Number.isNaN)) {
        session.batchRows.push(feeds.pixel_values?.dims[0] ?? 0);
        return Promise.reject(new Error('Non-zero status code returned while running Gather node'));
      }
      return run(feeds);
    };
    return session;
  };

  it('runs the rows of a refused batch alone: only the bad one fails', async () => {
    const session = refusingSession();
    const model = runner(session, 3);
    const bad = pixels(1, 0);
    (bad.data as Float32Array)[2] = NaN;
    // The first call runs alone at once; the next three queue into one batch behind it.
    const outcomes = await Promise.allSettled([
      model.infer({ pixel_values: pixels(1, 0) }, 1, undefined),
      model.infer({ pixel_values: pixels(1, 10) }, 1, undefined),
      model.infer({ pixel_values: bad }, 1, undefined),
      model.infer({ pixel_values: pixels(1, 20) }, 1, undefined),
    ]);
    const logits = (outcome: PromiseSettledResult<{ outputs: Record<string, WorkerTensor> }> | undefined) =>
      outcome?.status === 'fulfilled' ? Array.from(outcome.value.outputs.logits?.data as Float32Array) : [];
    expect(logits(outcomes[0])).toEqual([6]);
    expect(logits(outcomes[1])).toEqual([46]);
    expect(logits(outcomes[3])).toEqual([86]);
    expect(outcomes[2]?.status).toBe('rejected');
    expect(String((outcomes[2] as PromiseRejectedResult).reason)).toContain('inference failed');
    // The batch of three was refused, then each of its rows ran alone.
    expect(session.batchRows).toEqual([1, 3, 1, 1, 1]);
  });

  it('fails a lone refused row at once, without a second run', async () => {
    const session = refusingSession();
    const bad = pixels(2, 0);
    (bad.data as Float32Array)[5] = NaN;
    await expect(runner(session, 1).infer({ pixel_values: bad }, 2, undefined)).rejects.toThrow(
      'inference failed',
    );
    // Each row ran once in a batch of its own: the failing one was not run again.
    expect(session.batchRows).toEqual([1, 1]);
  });
});

describe('ModelRunner with a solo session', () => {
  /** crossingSession whose runs wait until `release()`. */
  const heldSession = () => {
    const session = crossingSession();
    const run = session.run.bind(session);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    session.run = async (feeds) => {
      const result = run(feeds);
      await gate;
      return result;
    };
    return Object.assign(session, { release: () => Promise.resolve(open()) });
  };

  it('runs a lone request on the solo session, and one that starts meanwhile on an instance', async () => {
    const instances = [crossingSession(), crossingSession()];
    const solo = heldSession();
    const computed: boolean[] = [];
    const model = new ModelRunner(
      'vit:1',
      instances,
      resolveBatchLimits({ maxBatchSize: 1 }),
      { onComputed: ({ path }) => computed.push(path !== 'instance') },
      { session: solo, inline: { maxInlineMicros: 0 } },
    );
    const lone = model.infer({ pixel_values: pixels(1, 0) }, 1, undefined);
    const meanwhile = await model.infer({ pixel_values: pixels(1, 10) }, 1, undefined);
    expect(Array.from(meanwhile.outputs.logits?.data as Float32Array)).toEqual([46]);
    expect(solo.batchRows).toEqual([1]);
    expect(instances.map((session) => session.batchRows.length).sort()).toEqual([0, 1]);
    await solo.release();
    expect(Array.from((await lone).outputs.logits?.data as Float32Array)).toEqual([6]);
    expect(computed).toEqual([false, true]);
    // Every session idle again: the next lone request takes the solo session.
    await model.infer({ pixel_values: pixels(1, 20) }, 1, undefined);
    expect(solo.batchRows).toEqual([1, 1]);
    expect(computed).toEqual([false, true, true]);
  });

  it('decides at dispatch: batches dispatched together take the instances even when a hold delays their runs', async () => {
    const instances = [crossingSession(), crossingSession()];
    const solo = crossingSession();
    const model = new ModelRunner(
      'vit:1',
      instances,
      resolveBatchLimits({ maxBatchSize: 1 }),
      {},
      {
        session: solo,
        inline: { maxInlineMicros: 0 },
      },
    );
    // Two rows, one per batch, dispatched in one turn: the first leaves the second queued, the second
    // finds the first in flight. Both are held, so neither has taken a session when the other looks.
    const result = await model.infer({ pixel_values: pixels(2, 0) }, 2, undefined, { holdMs: 5 });
    expect(Array.from(result.outputs.logits?.data as Float32Array)).toEqual([6, 22]);
    expect(solo.batchRows).toEqual([]);
    expect(instances.flatMap((session) => session.batchRows)).toEqual([1, 1]);
  });
});

describe('ModelRunner inline execution', () => {
  /** A solo session that runs inline and reports `runMicros` per row; `hold` keeps its next run waiting. */
  const inlineSession = (microsPerRow: number) => {
    const session = crossingSession();
    const run = session.run.bind(session);
    const holds: Promise<void>[] = [];
    session.run = async (feeds) => {
      const result = await run(feeds);
      const hold = holds.shift();
      if (hold) await hold;
      return { ...result, runMicros: microsPerRow * (feeds.pixel_values?.dims[0] ?? 1) };
    };
    return Object.assign(session, {
      runsInline: true,
      hold(): () => void {
        let open!: () => void;
        holds.push(new Promise<void>((resolve) => (open = resolve)));
        return () => open();
      },
    });
  };

  const runner = (solo: ReturnType<typeof inlineSession>, calibrated: boolean, paths: string[]) =>
    new ModelRunner(
      'vit:1',
      [crossingSession(), crossingSession()],
      resolveBatchLimits({ maxBatchSize: 8 }),
      { onComputed: ({ path }) => paths.push(path) },
      {
        session: solo,
        inline: { maxInlineMicros: 5000 },
        ...(calibrated ? { calibration: { units: 1, micros: 1000 } } : {}),
      },
    );

  it('runs a lone short request inline, with the answer a session thread gives', async () => {
    const paths: string[] = [];
    const model = runner(inlineSession(1000), true, paths);
    const result = await model.infer({ pixel_values: pixels(1, 0) }, 1, undefined);
    expect(Array.from(result.outputs.logits?.data as Float32Array)).toEqual([6]);
    expect(paths).toEqual(['inline']);
  });

  it('sends a request that arrives while an inline run is in progress to the batcher and an instance', async () => {
    const paths: string[] = [];
    const solo = inlineSession(1000);
    const model = runner(solo, true, paths);
    const release = solo.hold();
    const first = model.infer({ pixel_values: pixels(1, 0) }, 1, undefined);
    const meanwhile = await model.infer({ pixel_values: pixels(1, 10) }, 1, undefined);
    expect(Array.from(meanwhile.outputs.logits?.data as Float32Array)).toEqual([46]);
    expect(paths).toEqual(['instance']);
    release();
    expect(Array.from((await first).outputs.logits?.data as Float32Array)).toEqual([6]);
    expect(paths).toEqual(['instance', 'inline']);
  });

  it('keeps a batch expected to run past maxInlineMicros on an instance', async () => {
    const paths: string[] = [];
    const model = runner(inlineSession(1000), true, paths);
    // 6 rows × 1000 µs a row > 5000 µs.
    await model.infer({ pixel_values: pixels(6, 0) }, 6, undefined);
    await model.infer({ pixel_values: pixels(4, 0) }, 4, undefined);
    expect(paths).toEqual(['instance', 'inline']);
  });

  it('runs nothing inline before the run time is known', async () => {
    const paths: string[] = [];
    const model = runner(inlineSession(1000), false, paths);
    await model.infer({ pixel_values: pixels(1, 0) }, 1, undefined);
    expect(paths).toEqual(['instance']);
  });

  it('never runs a session-crash test hook inline', async () => {
    const paths: string[] = [];
    const model = runner(inlineSession(1000), true, paths);
    await model.infer({ pixel_values: pixels(1, 0) }, 1, undefined, { crashSession: true });
    expect(paths).toEqual(['instance']);
  });

  it('learns from its runs: a model that slows down past the cap leaves the inline path', async () => {
    const paths: string[] = [];
    const solo = inlineSession(1000);
    const model = runner(solo, true, paths);
    await model.infer({ pixel_values: pixels(1, 0) }, 1, undefined);
    solo.run = () =>
      Promise.resolve({
        outputs: { logits: { datatype: 'FP32', dims: [1, 1], data: new Float32Array([6]) } },
        runMicros: 50_000,
      });
    for (let i = 0; i < 3; i++) await model.infer({ pixel_values: pixels(1, 0) }, 1, undefined);
    // 1000 → 10_800 µs after one slow run (weight 0.2): over the cap from then on.
    expect(paths).toEqual(['inline', 'inline', 'instance', 'instance']);
  });
});

describe('ModelRunner admission', () => {
  it('refuses a request with more rows than the queue holds as invalid, not as a full queue to retry', async () => {
    const session = crossingSession();
    const model = new ModelRunner(
      'vit:1',
      [session],
      resolveBatchLimits({ maxBatchSize: 2, maxQueueSize: 4 }),
    );
    await expect(model.infer({ pixel_values: pixels(5, 0) }, 5, undefined)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message:
        'model vit:1: a request of 5 rows exceeds the 4 its queue holds (batching.maxQueueSize): send fewer rows per request',
    });
    expect(session.given).toHaveLength(0);
    // As many rows as it holds still run.
    const result = await model.infer({ pixel_values: pixels(4, 0) }, 4, undefined);
    expect(result.outputs.logits?.dims).toEqual([4, 1]);
  });
});
