import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type RunningGateway,
  type RunningWorker,
  freePort,
  startGateway,
  startWorkerWithSnapshot,
  tokenInferRequest,
  tokenRows,
  waitFor,
  writeSnapshot,
} from '@modelgate/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServiceLikeClient } from './support/service-like-client.js';

const HOLD = 'x-modelgate-test-hold-ms';
/** Long enough for the client's readiness poll to notice on a busy machine; nothing is timed against it. */
const SHUTDOWN_DELAY_MS = 3000;
/** The worker's held batch outlasts the delay, so requests are still in flight when the listener closes. */
const WORKER_HOLD_MS = SHUTDOWN_DELAY_MS + 3000;

/**
 * Waits until `loops` event loops of `gateway` have each swapped in the endpoint table (its log at
 * info level names each loop's pid). startGateway returns once one loop's readiness says so, and
 * the cluster primary hands connections to every listening loop, ready or not.
 */
async function everyLoopServing(gateway: RunningGateway, loops: number): Promise<void> {
  const servingPids = () =>
    new Set(
      gateway.process
        .output()
        .split('\n')
        .filter((line) => line.includes('endpoint table swapped in'))
        .map((line) => (JSON.parse(line) as { pid: number }).pid),
    );
  await waitFor(() => servingPids().size >= loops, { describe: () => gateway.process.output() });
}

describe.each([
  ['one event loop', 1],
  ['two event loops (cluster)', 2],
])('gateway graceful termination, %s', (_name, loops) => {
  let worker: RunningWorker;
  let leaving: RunningGateway;
  let staying: RunningGateway;

  beforeEach(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-shutdown-'));
    const port = await freePort();
    const snapshot = await writeSnapshot(
      dir,
      [{ name: 'bert', fixture: 'tiny-bert-sst2', batching: { maxBatchSize: 8, defaultTimeoutMs: 60_000 } }],
      {
        workerGroups: [{ name: 'default', addresses: [`127.0.0.1:${port}`] }],
        endpoints: [
          {
            name: 'sentiment',
            task: 'text-classification',
            routes: [{ model: 'bert:1', weight: 100, role: 'primary' }],
          },
        ],
      },
    );
    worker = await startWorkerWithSnapshot(snapshot, { WORKER_GRPC_PORT: String(port) });
    [leaving, staying] = await Promise.all([
      startGateway(snapshot, {
        GATEWAY_WORKERS: String(loops),
        GATEWAY_SHUTDOWN_DELAY_MS: String(SHUTDOWN_DELAY_MS),
        GATEWAY_LOG_LEVEL: 'info', // the shutdown phases are logged at info
      }),
      startGateway(snapshot),
    ]);
    await everyLoopServing(leaving, loops);
  });

  afterEach(async () => {
    await Promise.all([leaving?.stop(), staying?.stop()]);
    await worker?.stop();
  });

  it('loses no request: readiness goes false first, requests keep being served, in-flight ones finish, then it exits 0', async () => {
    const client = new ServiceLikeClient({ leaving: leaving.url, staying: staying.url });
    const closing = client.eventWhen('leaving:closing', leaving.process.child, (output) =>
      output.includes('stopped accepting'),
    );
    client.start(8);
    await client.answeredBy('leaving', 20);
    await client.answeredBy('staying', 20);

    // Hold the worker's next batch: what the gateways send now waits in the worker's queue.
    const held = worker.client.call('ModelInfer', tokenInferRequest('bert', tokenRows(1, 11, 6, 6)), {
      metadata: { [HOLD]: String(WORKER_HOLD_MS) },
    });
    client.mark('leaving:sigterm');
    leaving.process.child.kill('SIGTERM');

    // A client that has not noticed yet (a load balancer a moment behind) is still served.
    await client.unready('leaving');
    const late = client.sendTo('leaving', 'late');

    await closing;
    expect(await leaving.process.exited).toBe(0);
    client.mark('leaving:exited');
    await held;
    await client.answeredBy('staying', client.answered('staying') + 20);
    await client.stop();

    expect(client.failures()).toEqual([]);
    // Readiness answered 503 (the listener was still open), after the signal and before closing.
    expect(client.unreadyStatusOf('leaving')).toBe(503);
    const unready = client.at('leaving:unready');
    const closed = client.at('leaving:closing');
    expect(unready).toBeGreaterThan(client.at('leaving:sigterm'));
    expect(unready).toBeLessThan(closed);
    expect(closed).toBeLessThan(client.at('leaving:exited'));
    const toLeaving = client.requests().filter((request) => request.target === 'leaving');
    // Nothing was routed to it once its readiness was seen false.
    expect(toLeaving.filter((r) => r.kind === 'routed' && r.sentAt > unready)).toEqual([]);
    // Requests in flight when the listener closed were answered, not cut.
    const inFlightAtClose = toLeaving.filter((r) => r.sentAt < closed && r.answeredAt > closed);
    expect(inFlightAtClose.length).toBeGreaterThan(0);
    // A client a moment behind was still served, and told to reconnect (elsewhere).
    expect(await late).toMatchObject({ status: 200, connection: 'close' });
    expect((await late).sentAt).toBeLessThan(closed);
  });
});
