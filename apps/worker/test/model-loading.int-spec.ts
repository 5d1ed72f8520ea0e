import { type ConfigSnapshot } from '@modelgate/contracts';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type ModelManager,
  type ModelManagerFactory,
  builtModelManagers,
  fixtureSnapshot,
  stopModelManager,
} from './support/built-model-manager.js';

/** A fetcher the test steers: each call takes the next behaviour, then the last one forever. */
class SteeredFetcher {
  calls = 0;
  private readonly behaviours: (() => Promise<{ path: string }>)[] = [];

  then(...behaviours: (() => Promise<{ path: string }>)[]): this {
    this.behaviours.push(...behaviours);
    return this;
  }

  fetchModel(): Promise<{ path: string }> {
    const behaviour = this.behaviours[Math.min(this.calls, this.behaviours.length - 1)]!;
    this.calls++;
    return behaviour();
  }
}

/** A promise and the function that settles it: a load held until the test lets it go. */
function held<T>(): { promise: Promise<T>; release: (value: T) => void } {
  let release!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (release = resolve));
  return { promise, release };
}

const unreachable = () => Promise.reject(new Error('artifact store unreachable (ECONNREFUSED)'));

describe('model loading: retries with backoff, per-model loads, applied revisions', () => {
  let modelPath: string;
  let base: ConfigSnapshot;
  let newManager: ModelManagerFactory;
  let manager: ModelManager | undefined;

  beforeAll(async () => {
    newManager = await builtModelManagers();
    ({ base, modelPath } = await fixtureSnapshot('worker-loading-', [
      { name: 'a', fixture: 'tiny-bert-sst2' },
      { name: 'b', fixture: 'tiny-bert-sst2' },
    ]));
  });

  afterEach(async () => {
    await stopModelManager(manager);
    manager = undefined;
  });

  function start(
    fetcher: SteeredFetcher,
    maxAttempts = 3,
    baseDelayMs = 20,
    soloSession = true,
  ): ModelManager {
    const retry = { baseDelayMs, maxDelayMs: Math.max(40, baseDelayMs), maxAttempts };
    manager = newManager(fetcher, retry, { soloSession });
    return manager;
  }

  const snapshot = (revision: number, names: string[]): ConfigSnapshot => ({
    ...base,
    revision,
    models: base.models.filter((model) => names.includes(model.name)),
  });

  it('retries a load that failed until the artifact can be fetched, then serves it', async () => {
    const fetcher = new SteeredFetcher().then(unreachable, unreachable, () =>
      Promise.resolve({ path: modelPath }),
    );
    const models = start(fetcher);
    await models.applySnapshot(snapshot(1, ['a']));
    expect(fetcher.calls).toBe(3);
    expect(models.states()).toEqual({ 'a:1': 'READY' });
    expect(models.revision).toBe(1);
    expect(models.ready).toBe(true);
  });

  it('gives up after the last attempt with the reason, counts the revision as applied, and is not ready', async () => {
    const models = start(new SteeredFetcher().then(unreachable), 3);
    await models.applySnapshot(snapshot(1, ['a']));
    expect(models.states()).toEqual({ 'a:1': 'FAILED' });
    expect(models.revision).toBe(1);
    expect(models.ready).toBe(false); // strict readiness: given a model, serving none
    expect(() => models.require('a')).toThrow(
      /not ready \(failed: artifact store unreachable \(ECONNREFUSED\) \(gave up after 3 attempts\)\)/,
    );
  });

  it('shows the failure and the next attempt while retrying, and reports the revision only once the load is over', async () => {
    const second = held<{ path: string }>();
    const fetcher = new SteeredFetcher().then(unreachable, () => second.promise);
    const models = start(fetcher, 5);
    const applying = models.applySnapshot(snapshot(1, ['a']));
    await expect.poll(() => fetcher.calls).toBe(2);
    // The second attempt is held: the reason says it is running, with the first one's failure.
    expect(models.require.bind(models, 'a')).toThrow(
      /unreachable \(ECONNREFUSED\) \(attempt 2 of 5 running\)/,
    );
    expect(models.revision).toBeUndefined();
    second.release({ path: modelPath });
    await applying;
    expect(models.states()).toEqual({ 'a:1': 'READY' });
    expect(models.revision).toBe(1);
  });

  it('says when the next attempt comes, and drops the wait at once when the model is removed', async () => {
    const fetcher = new SteeredFetcher().then(unreachable);
    const models = start(fetcher, 3, 60_000);
    const first = models.applySnapshot(snapshot(1, ['a']));
    await expect.poll(() => models.failureReasons()['a:1']).toMatch(/\(attempt 1 of 3; retrying in 60 s\)$/);
    await models.applySnapshot(snapshot(2, [])); // removed during the minute's wait
    await first; // the abandoned load ended without waiting out its minute
    expect(models.states()).toEqual({});
    expect(fetcher.calls).toBe(1);
  });

  it('loads each model on its own: a held load neither blocks another model nor a later revision', async () => {
    const slow = held<{ path: string }>();
    // First fetch (model a, revision 1) is held; the next (model b, revision 2) answers at once.
    const fetcher = new SteeredFetcher().then(
      () => slow.promise,
      () => Promise.resolve({ path: modelPath }),
    );
    const models = start(fetcher);
    const first = models.applySnapshot(snapshot(1, ['a']));
    await expect.poll(() => fetcher.calls).toBe(1);
    await models.applySnapshot(snapshot(2, ['b'])); // a removed and b added while a's load is held
    expect(models.states()).toEqual({ 'b:1': 'READY' });
    expect(models.revision).toBe(2);
    slow.release({ path: modelPath }); // the abandoned load finishes and is thrown away
    await first;
    expect(models.states()).toEqual({ 'b:1': 'READY' });
    expect(models.revision).toBe(2);
  });

  it('keeps a slow load going when a later revision changes only other models, and applies that revision once it is over', async () => {
    const slow = held<{ path: string }>();
    const fetcher = new SteeredFetcher().then(
      () => slow.promise,
      () => Promise.resolve({ path: modelPath }),
    );
    const models = start(fetcher);
    const first = models.applySnapshot(snapshot(1, ['a']));
    await expect.poll(() => fetcher.calls).toBe(1);
    const second = models.applySnapshot(snapshot(2, ['a', 'b']));
    await expect.poll(() => models.states()['b:1']).toBe('READY'); // b did not wait for a
    expect(models.states()['a:1']).toBe('LOADING');
    expect(models.revision).toBeUndefined(); // both revisions still wait on a's load
    slow.release({ path: modelPath });
    await Promise.all([first, second]);
    expect(fetcher.calls).toBe(2); // a's load was not started twice
    expect(models.states()).toEqual({ 'a:1': 'READY', 'b:1': 'READY' });
    expect(models.revision).toBe(2);
  });

  it('tries a model that was given up on again when a new revision arrives', async () => {
    const fetcher = new SteeredFetcher().then(unreachable, () => Promise.resolve({ path: modelPath }));
    const models = start(fetcher, 1);
    await models.applySnapshot(snapshot(1, ['a']));
    expect(models.states()).toEqual({ 'a:1': 'FAILED' });
    await models.applySnapshot(snapshot(2, ['a']));
    expect(models.states()).toEqual({ 'a:1': 'READY' });
    expect(models.revision).toBe(2);
  });

  it('releases the surviving sessions of a copy whose session thread died, when its reload fails', async () => {
    const fetcher = new SteeredFetcher().then(() => Promise.resolve({ path: modelPath }), unreachable);
    // No solo session: the lone call below must take an instance (solo-session.int-spec covers its own).
    const models = start(fetcher, 1, 20, false);
    const twoInstances = (revision: number): ConfigSnapshot => {
      const base2 = snapshot(revision, ['a']);
      return {
        ...base2,
        models: base2.models.map((model) => ({ ...model, runtime: { ...model.runtime, instances: 2 } })),
      };
    };
    await models.applySnapshot(twoInstances(1));
    const lost = models.find('a')!;
    expect(lost.sessions).toHaveLength(2);
    // A call whose batch takes its session thread down (the worker's test hook) fails, and the model with it.
    const row = (value: bigint) => ({
      datatype: 'INT64',
      dims: [1, 4],
      data: new BigInt64Array(4).fill(value),
    });
    const inputs = { input_ids: row(101n), attention_mask: row(1n), token_type_ids: row(0n) };
    await expect(
      models.require('a').runner.infer(inputs, 1, undefined, { crashSession: true }),
    ).rejects.toThrow();
    await expect.poll(() => models.states()['a:1']).toBe('FAILED');
    await models.applySnapshot(twoInstances(2)); // tried again, and given up on
    expect(models.failureReasons()['a:1']).toMatch(/gave up after 1 attempt/);
    await expect.poll(() => lost.sessions.length).toBe(0); // the surviving session was released
  });

  it('keeps serving the previous copy when a reload fails, and says so in the reasons', async () => {
    const fetcher = new SteeredFetcher().then(() => Promise.resolve({ path: modelPath }), unreachable);
    const models = start(fetcher, 1);
    await models.applySnapshot(snapshot(1, ['a']));
    const changed = snapshot(2, ['a']);
    const reload = {
      ...changed,
      models: changed.models.map((m) => ({ ...m, batching: { ...m.batching, maxBatchSize: 3 } })),
    };
    await models.applySnapshot(reload);
    expect(models.states()).toEqual({ 'a:1': 'READY' });
    expect(models.failureReasons()['a:1']).toMatch(
      /^reload failed, the previous copy still serves: artifact store unreachable .*\(gave up after 1 attempt\)$/,
    );
    expect(models.revision).toBe(2);
    await models.applySnapshot(snapshot(3, ['a'])); // back to the serving spec: nothing to reload
    expect(models.failureReasons()).toEqual({});
  });
});
