import { describe, expect, it } from 'vitest';
import { FakeFleet, flush, request } from '../test/support/fake-fleet.js';

const GROUP = { workerGroups: [{ name: 'g', addresses: ['a', 'b'] }] };

describe('InferenceClient and a worker that stops answering', () => {
  it('ejects it after stallMs of silence while another answers, and its owed calls fail over', async () => {
    const fleet = new FakeFleet();
    fleet.answers.set('a', 'hold'); // stopped: takes calls, answers nothing
    const client = fleet.client(GROUP);
    const owed = client.infer(request()); // the first pick of a tie: a
    await flush();
    fleet.time.now = 10;
    expect(await client.infer(request())).toMatchObject({ worker: 'b', attempts: 1 });
    fleet.time.now = 2_999;
    expect(await client.infer(request())).toMatchObject({ worker: 'b' });
    expect(client.workerStatus().find((w) => w.address === 'a')?.ejected).toBe(false);
    fleet.time.now = 3_000;
    expect(await client.infer(request())).toMatchObject({ worker: 'b' });
    expect(await owed).toMatchObject({ worker: 'b', attempts: 2 });
    expect(client.workerStatus().find((w) => w.address === 'a')).toMatchObject({ ejected: true });
    expect(fleet.callsTo('a')).toBe(1);
  });

  it('re-admits it on probation, one trial call at a time, and ejects it again for longer while it stays silent', async () => {
    const fleet = new FakeFleet();
    fleet.answers.set('a', 'hold');
    const client = fleet.client(GROUP);
    const first = client.infer(request());
    await flush();
    fleet.time.now = 10;
    await client.infer(request());
    fleet.time.now = 3_000;
    await client.infer(request());
    await first;
    const firstEjection = client.workerStatus().find((w) => w.address === 'a')!.ejectedUntil!;
    expect(firstEjection).toBe(8_000);

    fleet.time.now = 8_000; // back on probation: a trial call, the others go to b
    const trial = Array.from({ length: 6 }, () => client.infer(request()));
    await flush();
    expect(fleet.callsTo('a')).toBe(2);
    fleet.time.now = 8_010;
    expect(await client.infer(request())).toMatchObject({ worker: 'b' });
    fleet.time.now = 11_000;
    expect(await client.infer(request())).toMatchObject({ worker: 'b' });
    const results = await Promise.all(trial);
    expect(results.filter((r) => r.attempts === 2).map((r) => r.worker)).toEqual(['b']);
    const again = client.workerStatus().find((w) => w.address === 'a')!;
    expect(again).toMatchObject({ ejected: true, ejectedUntil: 21_000 });

    fleet.answers.set('a', 'ok'); // it recovers: the next trial answers and it is back in rotation
    fleet.time.now = 21_000;
    await Promise.all(Array.from({ length: 4 }, () => client.infer(request())));
    const spread = Array.from({ length: 4 }, () => client.infer(request()));
    expect(new Set((await Promise.all(spread)).map((r) => r.worker))).toEqual(new Set(['a', 'b']));
  });

  it('ejects nothing when every worker is slow alike: no other worker answered meanwhile', async () => {
    const fleet = new FakeFleet();
    fleet.answers.set('a', 'hold');
    fleet.answers.set('b', 'hold');
    const client = fleet.client(GROUP);
    const calls = [client.infer(request()), client.infer(request())];
    await flush();
    fleet.time.now = 60_000;
    calls.push(client.infer(request()));
    await flush();
    expect(client.workerStatus().map((w) => w.ejected)).toEqual([false, false]);
    fleet.releaseAll();
    expect((await Promise.all(calls)).every((r) => r.attempts === 1)).toBe(true);
  });

  it('takes stallMs from outlierEjection', async () => {
    const fleet = new FakeFleet();
    fleet.answers.set('a', 'hold');
    const client = fleet.client({ ...GROUP, outlierEjection: { stallMs: 100 } });
    const owed = client.infer(request());
    await flush();
    fleet.time.now = 10;
    await client.infer(request());
    fleet.time.now = 100;
    await client.infer(request());
    expect(await owed).toMatchObject({ worker: 'b', attempts: 2 });
  });
});
