import { type ConfigSnapshot, type ModelSpec } from '@modelgate/contracts';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type ModelManager,
  type ModelManagerFactory,
  type TestManagerOptions,
  builtModelManagers,
  builtWorkerMetrics,
  fixtureSnapshot,
  sentence,
  stopModelManager,
} from './support/built-model-manager.js';

const RETRY = { baseDelayMs: 20, maxDelayMs: 40, maxAttempts: 1 };

// Managers here count two cores (TestManagerOptions.cores), whatever the machine has.
describe('the solo session (instances sharing two cores, real onnxruntime sessions)', () => {
  let base: ConfigSnapshot;
  let modelPath: string;
  let newManager: ModelManagerFactory;
  let manager: ModelManager | undefined;

  beforeAll(async () => {
    newManager = await builtModelManagers();
    ({ base, modelPath } = await fixtureSnapshot('worker-solo-', [{ name: 'a', fixture: 'tiny-bert-sst2' }]));
  });

  afterEach(async () => {
    await stopModelManager(manager);
    manager = undefined;
  });

  const snapshot = (runtime: Partial<ModelSpec['runtime']>, revision = base.revision): ConfigSnapshot => ({
    ...base,
    revision,
    models: base.models.map((model) => ({ ...model, runtime: { ...model.runtime, ...runtime } })),
  });

  async function load(runtime: Partial<ModelSpec['runtime']>, options: TestManagerOptions = {}) {
    manager = newManager({ fetchModel: () => Promise.resolve({ path: modelPath }) }, RETRY, options);
    await manager.applySnapshot(snapshot(runtime));
    expect(manager.states()).toEqual({ 'a:1': 'READY' });
    return manager;
  }

  it('runs a lone request on it and concurrent ones on the instances, with the same answers', async () => {
    const metrics = await builtWorkerMetrics();
    const models = await load({ instances: 2, intraOpThreads: 0 }, { metrics });
    const model = models.require('a');
    expect(model.soloSession).toBeDefined();
    expect(model.sessions).toHaveLength(2);
    const soloBatches = async () =>
      (await metrics.soloBatches.get()).values.find((v) => v.labels.model === 'a')?.value ?? 0;

    const alone = await model.runner.infer(sentence(), 1, undefined);
    expect(await soloBatches()).toBe(1);
    // Three at once: the first finds the model idle (solo), the two behind it take the instances.
    const together = await Promise.all([1, 2, 3].map(() => model.runner.infer(sentence(), 1, undefined)));
    expect(await soloBatches()).toBe(2);
    const logits = (result: { outputs: Record<string, { data: unknown }> }) =>
      Array.from(result.outputs.logits?.data as Float32Array);
    for (const result of together) {
      logits(result).forEach((value, i) => expect(value).toBeCloseTo(logits(alone)[i]!, 5));
    }
  });

  it('spins within its runs while the instances never do, unless WORKER_SOLO_SPINNING is false', async () => {
    const spinning = await load({ instances: 2, intraOpThreads: 0 });
    const model = spinning.require('a');
    expect(model.soloSession?.spinsWithinRuns).toBe(true);
    expect(model.sessions.map((session) => session.spinsWithinRuns)).toEqual([false, false]);
    // onnxruntime took the options: the spinning session answers as the instances do.
    const alone = await model.runner.infer(sentence(), 1, undefined);
    expect(Array.from(alone.outputs.logits?.data as Float32Array)).toHaveLength(2);
    await stopModelManager(spinning);

    const still = await load({ instances: 2, intraOpThreads: 0 }, { soloSpinning: false });
    expect(still.require('a').soloSession?.spinsWithinRuns).toBe(false);
  });

  it('fails the model like an instance when its thread dies; the next revision replaces the copy and releases its instances', async () => {
    const models = await load({ instances: 2, intraOpThreads: 0 });
    const lost = models.require('a');
    const solo = lost.soloSession!;
    // A lone call takes the solo session; the test hook takes its thread down under the batch.
    await expect(lost.runner.infer(sentence(), 1, undefined, { crashSession: true })).rejects.toThrow();
    expect(solo.lostReason).toBeDefined();
    await expect.poll(() => models.states()['a:1']).toBe('FAILED');
    await models.applySnapshot(snapshot({ instances: 2, intraOpThreads: 0 }, base.revision + 1));
    expect(models.states()).toEqual({ 'a:1': 'READY' });
    await expect.poll(() => lost.sessions.length).toBe(0);
    expect(lost.soloSession).toBeUndefined();
    expect(models.require('a').soloSession).toBeDefined();
  });

  it('is released with the model', async () => {
    const models = await load({ instances: 2, intraOpThreads: 0 });
    const solo = models.require('a').soloSession!;
    await stopModelManager(models);
    manager = undefined;
    expect(solo.lostReason).toBe('the session was released');
  });

  it('is not opened when turned off (WORKER_SOLO_SESSION false), for one instance, for a thread count given, or on one core', async () => {
    const metrics = await builtWorkerMetrics();
    const off = await load({ instances: 2, intraOpThreads: 0 }, { soloSession: false, metrics });
    expect(off.require('a').soloSession).toBeUndefined();
    await off.require('a').runner.infer(sentence(), 1, undefined);
    expect((await metrics.soloBatches.get()).values).toEqual([]);
    await stopModelManager(off);

    const single = await load({ instances: 1, intraOpThreads: 0 });
    expect(single.require('a').soloSession).toBeUndefined();
    await stopModelManager(single);

    const given = await load({ instances: 2, intraOpThreads: 1 });
    expect(given.require('a').soloSession).toBeUndefined();
    await stopModelManager(given);

    const oneCore = await load({ instances: 2, intraOpThreads: 0 }, { cores: 1 });
    expect(oneCore.require('a').soloSession).toBeUndefined();
  });
});
