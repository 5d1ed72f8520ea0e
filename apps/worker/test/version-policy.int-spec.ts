import { type ConfigSnapshot, type ModelVersionPolicy, parseConfigSnapshot } from '@modelgate/contracts';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type ModelManager,
  type ModelManagerFactory,
  builtModelManagers,
  fixtureSnapshot,
  stopModelManager,
} from './support/built-model-manager.js';

describe('version policy: which READY versions a worker loads', () => {
  let base: ConfigSnapshot;
  let modelPath: string;
  let newManager: ModelManagerFactory;
  let manager: ModelManager | undefined;

  beforeAll(async () => {
    newManager = await builtModelManagers();
    // demo:1..5 (one artifact), the way a user registers five versions of one model.
    ({ base, modelPath } = await fixtureSnapshot(
      'worker-versions-',
      [1, 2, 3, 4, 5].map((version) => ({
        name: 'demo',
        fixture: 'tiny-bert-sst2',
        version: String(version),
      })),
    ));
  });

  afterEach(async () => {
    await stopModelManager(manager);
    manager = undefined;
  });

  function start(unloadGraceMs = 0): ModelManager {
    manager = newManager(
      { fetchModel: () => Promise.resolve({ path: modelPath }) },
      { baseDelayMs: 20, maxDelayMs: 40, maxAttempts: 1 },
      { unloadGraceMs },
    );
    return manager;
  }

  const snapshot = (revision: number, routed: string[], versionPolicies: ModelVersionPolicy[] = []) =>
    parseConfigSnapshot({
      ...base,
      revision,
      endpoints: routed.map((model, i) => ({
        name: `ep-${i}`,
        task: 'text-classification',
        routes: [{ model, weight: 100, role: 'primary' }],
      })),
      versionPolicies,
    });

  const loaded = (models: ModelManager) => Object.keys(models.states()).sort();

  it('loads the routed versions and the newest one by default, not every READY version', async () => {
    const models = start();
    await models.applySnapshot(snapshot(1, ['demo:1']));
    expect(models.states()).toEqual({ 'demo:1': 'READY', 'demo:5': 'READY' });
    // A call without a version gets the newest loaded one; a version left unloaded is not served here.
    expect(models.require('demo').spec.id).toBe('demo:5');
    expect(() => models.require('demo', '3')).toThrow(/model 'demo:3' is not served here/);
  });

  it('follows policy changes: all, latest N, specific, and back to the default', async () => {
    const models = start();
    await models.applySnapshot(snapshot(1, ['demo:1'], [{ model: 'demo', policy: { kind: 'all' } }]));
    expect(loaded(models)).toEqual(['demo:1', 'demo:2', 'demo:3', 'demo:4', 'demo:5']);
    await models.applySnapshot(
      snapshot(2, ['demo:1'], [{ model: 'demo', policy: { kind: 'latest', count: 2 } }]),
    );
    expect(loaded(models)).toEqual(['demo:1', 'demo:4', 'demo:5']);
    await models.applySnapshot(
      snapshot(3, ['demo:1'], [{ model: 'demo', policy: { kind: 'specific', versions: [2] } }]),
    );
    expect(loaded(models)).toEqual(['demo:1', 'demo:2']);
    await models.applySnapshot(snapshot(4, ['demo:3']));
    expect(loaded(models)).toEqual(['demo:3', 'demo:5']);
    expect(Object.values(models.states()).every((state) => state === 'READY')).toBe(true);
  });

  it('drains a version before unloading it: a request in flight finishes with its answer', async () => {
    const models = start();
    await models.applySnapshot(snapshot(1, ['demo:1'], [{ model: 'demo', policy: { kind: 'all' } }]));
    const row = (value: bigint) => ({
      datatype: 'INT64',
      dims: [1, 4],
      data: new BigInt64Array(4).fill(value),
    });
    const inputs = { input_ids: row(101n), attention_mask: row(1n), token_type_ids: row(0n) };
    const order: string[] = [];
    // The batch is held on its session thread, so the unload below finds it in flight.
    const call = models
      .require('demo', '3')
      .runner.infer(inputs, 1, ['logits'], { holdMs: 300 })
      .then((result) => {
        order.push('answered');
        return result;
      });
    await expect.poll(() => models.find('demo', '3')?.runner?.inFlightBatches).toBe(1);
    const unloading = models.applySnapshot(snapshot(2, ['demo:1'])).then(() => order.push('unloaded'));
    const result = await call;
    await unloading;
    expect(Object.keys(result.outputs)).toEqual(['logits']);
    expect(order).toEqual(['answered', 'unloaded']);
    expect(loaded(models)).toEqual(['demo:1', 'demo:5']);
  });

  it('keeps serving a version its route moved off for the unload grace, for gateways still on the old route', async () => {
    // A grace far longer than the revision takes to apply: the version must still serve right after.
    const models = start(20_000);
    await models.applySnapshot(snapshot(1, ['demo:1']));
    await models.applySnapshot(snapshot(2, ['demo:2']));
    expect(loaded(models)).toEqual(['demo:1', 'demo:2', 'demo:5']);
    expect(models.require('demo', '1').spec.id).toBe('demo:1');
    // Wanted again before the grace ended: it stays, and stays put through later revisions.
    await models.applySnapshot(snapshot(3, ['demo:1']));
    expect(models.states()).toEqual({ 'demo:1': 'READY', 'demo:2': 'READY', 'demo:5': 'READY' });
  });

  it('unloads a version no longer wanted once its grace has passed', async () => {
    const models = start(300);
    await models.applySnapshot(snapshot(1, ['demo:1']));
    await models.applySnapshot(snapshot(2, ['demo:2']));
    await expect.poll(() => loaded(models), { timeout: 15_000 }).toEqual(['demo:2', 'demo:5']);
    expect(() => models.require('demo', '1')).toThrow(/model 'demo:1' is not served here/);
  });
});
