import { type InferResult, InferenceClient } from '@modelgate/inference-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningWorker, startWorker, tokenRows, waitFor } from '@modelgate/testing';
import { tokenInputs } from './support/token-inputs.js';

const CALLERS = 16;
const STALL_MS = 1000;

describe('InferenceClient when a worker hangs (SIGSTOP) under load', () => {
  let survivor: RunningWorker;
  let victim: RunningWorker;
  let client: InferenceClient;

  beforeAll(async () => {
    const models = [{ name: 'bert', fixture: 'tiny-bert-sst2', batching: { maxBatchSize: 16 } }];
    [survivor, victim] = await Promise.all([startWorker(models), startWorker(models)]);
    client = new InferenceClient({
      workerGroups: [{ name: 'tiny', addresses: [survivor.grpcAddress, victim.grpcAddress] }],
      outlierEjection: { stallMs: STALL_MS, baseEjectionMs: 500, maxEjectionMs: 2000 },
    });
  });

  afterAll(async () => {
    victim?.process.child.kill('SIGCONT');
    await client?.close();
    await Promise.all([survivor?.stop(), victim?.stop()]);
  });

  it('ejects the stopped worker, fails its owed calls over within their deadline, and re-admits it once it answers again', async () => {
    const rows = tokenRows(64, 43);
    const results: (InferResult & { sentAt: number; at: number })[] = [];
    const failures: unknown[] = [];
    let running = true;
    const caller = async (index: number) => {
      for (let i = 0; running; i++) {
        const sentAt = Date.now();
        try {
          const result = await client.infer({
            modelName: 'bert',
            modelVersion: '1',
            inputs: tokenInputs([rows[(index + i) % rows.length]!]),
            deadlineEpochMs: sentAt + 20_000,
            workerGroup: 'tiny',
          });
          results.push({ ...result, sentAt, at: Date.now() });
        } catch (error) {
          failures.push(error);
        }
      }
    };
    const callers = Array.from({ length: CALLERS }, (_, i) => caller(i));
    const answeredBy = (address: string, after: number) =>
      results.some((r) => r.worker === address && r.at > after);
    const victimStatus = () => client.workerStatus().find((w) => w.address === victim.grpcAddress);
    try {
      await waitFor(() => answeredBy(victim.grpcAddress, 0) && answeredBy(survivor.grpcAddress, 0), {
        describe: () => 'both workers answering',
      });
      victim.process.child.kill('SIGSTOP');
      const stoppedAt = Date.now();
      await waitFor(() => victimStatus()?.ejected === true, {
        describe: () => `the stopped worker ejected (${JSON.stringify(victimStatus())})`,
      });
      // Calls sent from now on go to the survivor, but for probation trials (one at a time).
      const ejectedAt = Date.now();
      await waitFor(() => results.filter((r) => r.sentAt > ejectedAt).length >= 200, {
        describe: () => 'calls answered while the worker is stopped',
      });
      const whileStopped = results.filter((r) => r.sentAt > ejectedAt);
      expect(whileStopped.every((r) => r.worker === survivor.grpcAddress)).toBe(true);
      // What the stopped worker held when it stopped came back from the survivor, on a second attempt.
      const failedOver = results.filter((r) => r.attempts === 2 && r.sentAt < ejectedAt && r.at > stoppedAt);
      expect(failedOver.length).toBeGreaterThan(0);
      expect(failedOver.every((r) => r.worker === survivor.grpcAddress)).toBe(true);

      victim.process.child.kill('SIGCONT');
      const resumedAt = Date.now();
      await waitFor(() => answeredBy(victim.grpcAddress, resumedAt), {
        timeoutMs: 30_000,
        describe: () => `the resumed worker answering again (${JSON.stringify(victimStatus())})`,
      });
    } finally {
      running = false;
      await Promise.all(callers);
    }
    expect(failures).toEqual([]);
    console.info(
      `hang: ${results.length} calls, ${results.filter((r) => r.attempts === 2).length} failed over, 0 failed`,
    );
  });
});
