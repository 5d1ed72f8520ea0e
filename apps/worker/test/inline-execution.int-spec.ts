import { type ConfigSnapshot, type ModelSpec } from '@modelgate/contracts';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type ModelManager,
  type ModelManagerFactory,
  type TestManagerOptions,
  type WorkerMetrics,
  builtModelManagers,
  builtWorkerMetrics,
  fixtureSnapshot,
  sentence,
  stopModelManager,
} from './support/built-model-manager.js';

const RETRY = { baseDelayMs: 20, maxDelayMs: 40, maxAttempts: 1 };
/** A cap no tiny-fixture run comes near: every lone batch may run inline. */
const INLINE = { maxMicros: 1_000_000 };

const logits = (result: { outputs: Record<string, { data: unknown }> }) =>
  Array.from(result.outputs.logits?.data as Float32Array);

/** Rows computed on each path, from modelgate_execution_path_rows_total. */
async function rowsByPath(metrics: WorkerMetrics): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const value of (await metrics.executionPathRows.get()).values)
    counts[String(value.labels.path)] = value.value;
  return counts;
}

// Managers here count two cores (TestManagerOptions.cores), whatever the machine has.
describe('inline execution (the solo session on the event-loop thread, real onnxruntime sessions)', () => {
  let base: ConfigSnapshot;
  let modelPath: string;
  let newManager: ModelManagerFactory;
  const managers: ModelManager[] = [];

  beforeAll(async () => {
    newManager = await builtModelManagers();
    ({ base, modelPath } = await fixtureSnapshot('worker-inline-', [
      { name: 'a', fixture: 'tiny-bert-sst2' },
    ]));
  });

  afterEach(async () => {
    for (const manager of managers.splice(0)) await stopModelManager(manager);
  });

  async function load(runtime: Partial<ModelSpec['runtime']>, options: TestManagerOptions = {}) {
    const manager = newManager({ fetchModel: () => Promise.resolve({ path: modelPath }) }, RETRY, options);
    managers.push(manager);
    await manager.applySnapshot({
      ...base,
      models: base.models.map((model) => ({ ...model, runtime: { ...model.runtime, ...runtime } })),
    });
    expect(manager.states()).toEqual({ 'a:1': 'READY' });
    return manager.require('a');
  }

  it('runs a lone request inline, with the logits a session thread computes, for one instance too', async () => {
    const metrics = await builtWorkerMetrics();
    const inline = await load({ instances: 1, intraOpThreads: 0 }, { inline: INLINE, metrics });
    expect(inline.soloSession?.runsInline).toBe(true);
    const threaded = await load({ instances: 1, intraOpThreads: 0 });
    expect(threaded.soloSession).toBeUndefined();

    const onThread = logits(await threaded.runner.infer(sentence(), 1, undefined));
    const here = logits(await inline.runner.infer(sentence(), 1, undefined));
    expect(await rowsByPath(metrics)).toEqual({ inline: 1 });
    here.forEach((value, i) => expect(value).toBeCloseTo(onThread[i]!, 5));
  });

  it('batches a request that arrives while an inline run is in progress, on an instance, and answers it first', async () => {
    const metrics = await builtWorkerMetrics();
    const model = await load({ instances: 2, intraOpThreads: 0 }, { inline: INLINE, metrics });
    const order: string[] = [];
    // The test hold keeps the inline batch from running while it holds the solo session.
    const held = model.runner
      .infer(sentence(), 1, undefined, { holdMs: 400 })
      .then((result) => (order.push('held inline'), result));
    const meanwhile = await model.runner.infer(sentence(), 1, undefined);
    order.push('meanwhile');
    const first = await held;
    expect(order).toEqual(['meanwhile', 'held inline']);
    expect(await rowsByPath(metrics)).toEqual({ inline: 1, instance: 1 });
    logits(meanwhile).forEach((value, i) => expect(value).toBeCloseTo(logits(first)[i]!, 5));
  });

  it('honours a deadline while an inline batch is held, and a drain waits for the inline batch', async () => {
    const model = await load({ instances: 1, intraOpThreads: 0 }, { inline: INLINE });
    const late = model.runner.infer(sentence(), 1, undefined, {
      holdMs: 300,
      deadlineEpochMs: Date.now() + 50,
      answerAtDeadline: true,
    });
    await expect(late).rejects.toMatchObject({ code: 'DEADLINE_EXCEEDED' });

    const running = model.runner.infer(sentence(), 1, undefined, { holdMs: 200 });
    expect(model.runner.inFlightBatches).toBe(1);
    await model.runner.drain();
    // The drain ended once the held inline batch had computed, not before.
    expect(model.runner.inFlightBatches).toBe(0);
    expect(logits(await running)).toHaveLength(2);
    await expect(model.runner.infer(sentence(), 1, undefined)).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
  });

  it('keeps a batch expected past WORKER_INLINE_MAX_MS on a session thread', async () => {
    const metrics = await builtWorkerMetrics();
    const model = await load({ instances: 1, intraOpThreads: 0 }, { inline: { maxMicros: 1 }, metrics });
    await model.runner.infer(sentence(), 1, undefined);
    expect(await rowsByPath(metrics)).toEqual({ instance: 1 });
  });

  it('opens no inline session beside WORKER_SOLO_SESSION=false', async () => {
    const model = await load({ instances: 1, intraOpThreads: 0 }, { inline: INLINE, soloSession: false });
    expect(model.soloSession).toBeUndefined();
  });
});

describe('inline execution and generation', () => {
  it('never opens an inline session for a text-generation model (its loop lives on a session thread)', async () => {
    const newManager = await builtModelManagers();
    const { base, modelPath } = await fixtureSnapshot('worker-inline-gen-', [
      { name: 'g', fixture: 'tiny-gpt2', task: 'text-generation' },
    ]);
    const manager = newManager({ fetchModel: () => Promise.resolve({ path: modelPath }) }, RETRY, {
      inline: INLINE,
    });
    try {
      await manager.applySnapshot(base);
      expect(manager.states()).toEqual({ 'g:1': 'READY' });
      expect(manager.find('g')?.soloSession).toBeUndefined();
    } finally {
      await stopModelManager(manager);
    }
  });
});
