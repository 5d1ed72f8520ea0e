import { type InferResult, InferenceClient } from '@modelgate/inference-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenRows } from '@modelgate/testing';
import { type RunningWorker, startWorker } from '@modelgate/testing';
import { tokenInputs } from './support/token-inputs.js';

const CALLERS = 32;
const RUN_MS = 3000;
const KILL_AT_MS = 1000;

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
    const started = Date.now();
    const results: (InferResult & { at: number })[] = [];
    const failures: unknown[] = [];
    let killedAt = Number.POSITIVE_INFINITY;
    const caller = async (index: number) => {
      for (let i = 0; Date.now() - started < RUN_MS; i++) {
        const row = rows[(index + i) % rows.length]!;
        try {
          const result = await client.infer({
            modelName: 'bert',
            modelVersion: '1',
            inputs: tokenInputs([row]),
            deadlineEpochMs: Date.now() + 5000,
            workerGroup: 'tiny',
          });
          results.push({ ...result, at: Date.now() });
        } catch (error) {
          failures.push(error);
        }
      }
    };
    const kill = (async () => {
      await new Promise((resolve) => setTimeout(resolve, KILL_AT_MS));
      killedAt = Date.now();
      victim.process.child.kill('SIGKILL');
    })();
    await Promise.all([...Array.from({ length: CALLERS }, (_, i) => caller(i)), kill]);

    expect(failures).toEqual([]);
    const before = results.filter((r) => r.at < killedAt);
    const after = results.filter((r) => r.at > killedAt + 100);
    expect(before.filter((r) => r.worker === victim.grpcAddress).length).toBeGreaterThan(0);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((r) => r.worker === survivor.grpcAddress)).toBe(true);
    const retried = results.filter((r) => r.attempts === 2);
    expect(retried.length).toBeGreaterThan(0);
    expect(client.workerStatus().find((w) => w.address === victim.grpcAddress)).toMatchObject({
      ejected: true,
    });
    console.info(
      `failover: ${results.length} calls (${before.length} before the kill), ${retried.length} retried, 0 failed`,
    );
  });
});
