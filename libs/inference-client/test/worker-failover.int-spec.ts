import { type InferResult, InferenceClient } from '@modelgate/inference-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenRows, waitFor } from '@modelgate/testing';
import { type RunningWorker, startWorker } from '@modelgate/testing';
import { tokenInputs } from './support/token-inputs.js';

const CALLERS = 32;
/** Calls each worker serves before the kill, and calls started after it that must all succeed. */
const CALLS_BEFORE_KILL = 50;
const CALLS_AFTER_KILL = 100;

describe('InferenceClient when a worker dies under load', () => {
  let survivor: RunningWorker;
  let victim: RunningWorker;
  let client: InferenceClient;

  beforeAll(async () => {
    const models = [{ name: 'bert', fixture: 'tiny-bert-sst2', batching: { maxBatchSize: 16 } }];
    [survivor, victim] = await Promise.all([startWorker(models), startWorker(models)]);
    client = new InferenceClient({
      workerGroups: [{ name: 'tiny', addresses: [survivor.grpcAddress, victim.grpcAddress] }],
    });
  });

  afterAll(async () => {
    await client?.close();
    await Promise.all([survivor?.stop(), victim?.stop()]);
  });

  it('loses no call when one of two workers is killed -9: retries move them, the dead one is ejected', async () => {
    const rows = tokenRows(64, 41);
    const results: (InferResult & { afterKill: boolean })[] = [];
    const failures: unknown[] = [];
    let calling = true;
    let victimGone = false;
    void victim.process.exited.then(() => (victimGone = true));
    const caller = async (index: number) => {
      for (let i = 0; calling; i++) {
        const row = rows[(index + i) % rows.length]!;
        // Started once the victim had exited: nothing can answer it from there.
        const afterKill = victimGone;
        try {
          const result = await client.infer({
            modelName: 'bert',
            modelVersion: '1',
            inputs: tokenInputs([row]),
            deadlineEpochMs: Date.now() + 5000,
            workerGroup: 'tiny',
          });
          results.push({ ...result, afterKill });
        } catch (error) {
          failures.push(error);
        }
      }
    };
    const served = (address: string) => results.filter((r) => r.worker === address).length;
    const callers = Array.from({ length: CALLERS }, (_, i) => caller(i));
    try {
      // Both workers are taking the load before one of them dies.
      await waitFor(
        () =>
          served(victim.grpcAddress) >= CALLS_BEFORE_KILL &&
          served(survivor.grpcAddress) >= CALLS_BEFORE_KILL,
      );
      victim.process.child.kill('SIGKILL');
      await victim.process.exited;
      await waitFor(() => results.filter((r) => r.afterKill).length >= CALLS_AFTER_KILL);
    } finally {
      calling = false;
      await Promise.all(callers);
    }

    expect(failures).toEqual([]);
    const before = results.filter((r) => !r.afterKill);
    const after = results.filter((r) => r.afterKill);
    expect(after.every((r) => r.worker === survivor.grpcAddress)).toBe(true);
    const retried = results.filter((r) => r.attempts === 2);
    expect(retried.length).toBeGreaterThan(0);
    expect(client.workerStatus().find((w) => w.address === victim.grpcAddress)).toMatchObject({
      ejected: true,
    });
    console.info(
      `failover: ${results.length} calls (${before.length} started before the kill), ${retried.length} retried, 0 failed`,
    );
  });
});
