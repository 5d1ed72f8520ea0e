import { describe, expect, it } from 'vitest';
import { FakeFleet, failureOf, request } from '../test/support/fake-fleet.js';

describe('InferenceClient failover', () => {
  it('retries UNAVAILABLE once, on a different worker', async () => {
    const fleet = new FakeFleet();
    fleet.answers.set('a', 'UNAVAILABLE');
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a', 'b'] }] });
    const result = await client.infer(request());
    expect(result).toMatchObject({ worker: 'b', attempts: 2 });
    expect(fleet.requests.map((r) => r.address)).toEqual(['a', 'b']);
  });

  it('gives up after its one retry and reports UNAVAILABLE', async () => {
    const fleet = new FakeFleet();
    for (const address of ['a', 'b', 'c']) fleet.answers.set(address, 'UNAVAILABLE');
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a', 'b', 'c'] }] });
    expect(await failureOf(client.infer(request()))).toMatchObject({ code: 'UNAVAILABLE' });
    expect(fleet.requests).toHaveLength(2);
  });

  it('does not retry when the group has no other worker', async () => {
    const fleet = new FakeFleet();
    fleet.answers.set('a', 'UNAVAILABLE');
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a'] }] });
    expect(await failureOf(client.infer(request()))).toMatchObject({ code: 'UNAVAILABLE' });
    expect(fleet.requests).toHaveLength(1);
  });

  it.each([
    ['DEADLINE_EXCEEDED', 'DEADLINE_EXCEEDED', {}],
    ['INVALID_ARGUMENT', 'INVALID_ARGUMENT', {}],
    ['RESOURCE_EXHAUSTED', 'QUEUE_FULL', { retryAfterSeconds: 1 }],
  ] as const)('never retries %s (surfaced as %s)', async (status, code, details) => {
    const fleet = new FakeFleet();
    fleet.answers.set('a', status);
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a', 'b'] }] });
    const error = await failureOf(client.infer(request()));
    expect(error).toMatchObject({ code, message: `${status} from a`, details });
    expect(fleet.callsTo('b')).toBe(0);
  });

  it('answers UNAVAILABLE naming the model when the group has no worker, without dialling anyone', async () => {
    const fleet = new FakeFleet();
    const client = fleet.client({ workerGroups: [{ name: 'empty', addresses: [] }] });
    for (const group of ['empty', 'unknown']) {
      expect(await failureOf(client.infer(request({ workerGroup: group })))).toMatchObject({
        code: 'UNAVAILABLE',
        message: "no ready worker for model 'bert:1'",
      });
    }
    expect(fleet.channels).toHaveLength(0);
  });

  it('passes over a worker that just refused a connection, ejects it after three, re-admits it after five seconds', async () => {
    const fleet = new FakeFleet();
    fleet.answers.set('a', 'UNAVAILABLE');
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a', 'b'] }] });
    for (let i = 0; i < 20; i++) await client.infer(request());
    expect(fleet.callsTo('a')).toBe(1); // suspect for a second after its failure: no call costs a retry
    for (let round = 0; round < 2; round++) {
      fleet.time.now += 1_000;
      for (let i = 0; i < 4; i++) await client.infer(request());
    }
    expect(fleet.callsTo('a')).toBe(3);
    expect(client.workerStatus().find((w) => w.address === 'a')).toMatchObject({ ejected: true, calls: 3 });
    fleet.time.now += 5_000;
    fleet.answers.set('a', 'ok');
    await Promise.all([client.infer(request()), client.infer(request())]);
    expect(fleet.callsTo('a')).toBe(4);
  });

  it('in panic mode still tries an ejected worker rather than failing outright', async () => {
    const fleet = new FakeFleet();
    fleet.answers.set('a', 'UNAVAILABLE');
    const client = fleet.client({ workerGroups: [{ name: 'g', addresses: ['a'] }] });
    for (let i = 0; i < 3; i++) await failureOf(client.infer(request()));
    expect(client.workerStatus()[0]?.ejected).toBe(true);
    fleet.answers.set('a', 'ok');
    expect(await client.infer(request())).toMatchObject({ worker: 'a' });
  });

  it('stops retrying once the retry budget is spent', async () => {
    const fleet = new FakeFleet();
    for (const address of ['a', 'b']) fleet.answers.set(address, 'UNAVAILABLE');
    const client = fleet.client({
      workerGroups: [{ name: 'g', addresses: ['a', 'b'] }],
      retryBudget: { ratio: 0, minRetries: 2 },
      outlierEjection: { consecutiveFailures: 1000 },
    });
    for (let i = 0; i < 5; i++) {
      fleet.time.now += 1; // each call starts after the workers' failure streaks began
      await failureOf(client.infer(request()));
    }
    expect(fleet.requests).toHaveLength(2 * 2 + 3);
    fleet.time.now += 1_000;
    await failureOf(client.infer(request()));
    expect(fleet.requests).toHaveLength(9);
  });

  it('retries every call a dying worker held, beyond the budget (later calls: see the budget test)', async () => {
    const fleet = new FakeFleet();
    for (const address of ['a', 'b']) fleet.answers.set(address, 'hold');
    const client = fleet.client({
      workerGroups: [{ name: 'g', addresses: ['a', 'b'] }],
      retryBudget: { ratio: 0, minRetries: 0 }, // the budget alone allows no retry at all
      outlierEjection: { consecutiveFailures: 1000 },
    });
    const calls = Array.from({ length: 40 }, () => client.infer(request()));
    await Promise.resolve();
    expect(fleet.callsTo('a')).toBe(20);
    fleet.answers.set('b', 'ok');
    fleet.answers.set('a', 'UNAVAILABLE');
    fleet.time.now += 1;
    fleet.failHeld('a', 'UNAVAILABLE'); // a dies with 20 calls in flight
    fleet.releaseAll();
    const results = await Promise.all(calls);
    expect(results.every((result) => result.worker === 'b')).toBe(true);
    expect(results.filter((result) => result.attempts === 2)).toHaveLength(20);
  });
});
