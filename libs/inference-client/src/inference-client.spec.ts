import { describe, expect, it } from 'vitest';
import { FakeFleet, failureOf, flush, request } from '../test/support/fake-fleet.js';

describe('InferenceClient', () => {
  it('sends raw tensors to a worker of the group and decodes its answer', async () => {
    const fleet = new FakeFleet();
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a'] }] });
    const result = await client.infer(request({ id: 'r1', outputs: ['logits'] }));
    expect(result).toMatchObject({
      worker: 'a',
      attempts: 1,
      modelName: 'bert',
      modelVersion: '1',
      id: 'r1',
    });
    expect([...(result.outputs.logits?.data as Float32Array)]).toEqual([0.5, -0.5]);
    const sent = fleet.requests[0]?.request;
    expect(sent).toMatchObject({
      model_name: 'bert',
      model_version: '1',
      id: 'r1',
      outputs: [{ name: 'logits' }],
    });
    expect(sent?.raw_input_contents).toHaveLength(1);
  });

  it('spreads concurrent calls by least outstanding requests', async () => {
    const fleet = new FakeFleet();
    for (const address of ['a', 'b', 'c']) fleet.answers.set(address, 'hold');
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a', 'b', 'c'] }] });
    const calls = Array.from({ length: 9 }, () => client.infer(request()));
    expect(client.workerStatus().map((w) => w.outstanding)).toEqual([3, 3, 3]);
    fleet.releaseAll();
    const workers = (await Promise.all(calls)).map((r) => r.worker).sort();
    expect(workers).toEqual(['a', 'a', 'a', 'b', 'b', 'b', 'c', 'c', 'c']);
  });

  it('weighs outstanding rows, not calls: a big call counts as many small ones', async () => {
    const fleet = new FakeFleet();
    for (const address of ['a', 'b']) fleet.answers.set(address, 'hold');
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a', 'b'] }] });
    const eight = BigInt64Array.from({ length: 16 }, () => 7n);
    const big = client.infer(
      request({ inputs: [{ name: 'input_ids', datatype: 'INT64', dims: [8, 2], data: eight }] }),
    );
    const small = Array.from({ length: 3 }, () => client.infer(request()));
    fleet.releaseAll();
    const bigWorker = (await big).worker;
    const smallWorkers = (await Promise.all(small)).map((r) => r.worker);
    expect(smallWorkers).toEqual(Array(3).fill(bigWorker === 'a' ? 'b' : 'a'));
  });

  it('keeps the channels of addresses that stay and closes removed ones after their running calls', async () => {
    const fleet = new FakeFleet();
    fleet.answers.set('a', 'hold');
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a', 'b'] }] });
    const held = client.infer(request({ addresses: ['a'] }));
    await client.infer(request({ addresses: ['b'] }));
    client.setWorkerGroups([{ name: 'g', addresses: ['b', 'c'] }]);
    const [a, b] = fleet.channels;
    expect(a?.closed).toBe(false);
    fleet.releaseAll();
    await held;
    expect(a?.closed).toBe(true);
    await client.infer(request());
    await client.infer(request());
    expect(fleet.channels.map((c) => c.address)).toEqual(['a', 'b', 'c']);
    expect(b?.closed).toBe(false);
    expect(client.addressesOf('g')).toEqual(['b', 'c']);
  });

  it('cancels the call when the caller aborts, without a retry', async () => {
    const fleet = new FakeFleet();
    fleet.answers.set('a', 'hold');
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a', 'b'] }] });
    const abort = new AbortController();
    const call = client.infer(request({ signal: abort.signal }));
    await flush();
    abort.abort();
    expect(await failureOf(call)).toMatchObject({ code: 'CANCELLED' });
    expect(fleet.requests).toHaveLength(1);
  });

  it('closes after the running calls end and refuses calls from then on', async () => {
    const fleet = new FakeFleet();
    fleet.answers.set('a', 'hold');
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a'] }] });
    const held = client.infer(request());
    let closed = false;
    const closing = client.close().then(() => (closed = true));
    await flush();
    expect(closed).toBe(false);
    fleet.releaseAll();
    await Promise.all([held, closing]);
    expect(fleet.channels[0]?.closed).toBe(true);
    expect(await failureOf(client.infer(request()))).toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('refuses a call without a finite deadline before dialling', async () => {
    const fleet = new FakeFleet();
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a'] }] });
    expect(await failureOf(client.infer(request({ deadlineEpochMs: Number.NaN })))).toMatchObject({
      code: 'INTERNAL',
    });
    expect(fleet.requests).toHaveLength(0);
  });

  it('reports readiness per worker and per group, treating failures as not ready', async () => {
    const fleet = new FakeFleet();
    fleet.answers.set('a', 'ok');
    fleet.answers.set('b', 'UNAVAILABLE');
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a', 'b'] }] });
    expect(await client.serverReady('a')).toBe(true);
    expect(await client.modelReady('b', 'bert', '1')).toBe(false);
    expect(await client.hasReadyWorker('g', 'bert', '1')).toBe(true);
    expect(await client.hasReadyWorker('g', 'other')).toBe(false);
    expect(await client.hasReadyWorker('nobody', 'bert')).toBe(false);
  });
});
