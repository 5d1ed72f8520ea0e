/**
 * The shared-cores comparison (issues 8, 3 and 11): every party on the same cores, in interleaved
 * rounds — raw session.run, then the naive server's ladder, then modelgate's, then the worker
 * alone — so a neighbour's burst or a thermal drift lands on all systems alike rather than on
 * whichever happened to be measured then. Ratios are taken within a round.
 */
import { type BenchOptions } from './bench-options.js';
import { type SharedResult, type SharedRound } from './bench-results.js';
import { type ControlPlane, type Deployment } from './control-plane.js';
import { type ModelgateStack, type WorkerNode, startModelgate, startWorkerNode } from './modelgate-stack.js';
import {
  type NaiveServer,
  measureModelgateStep,
  measureNaiveStep,
  measureRawLimit,
  measureWorkerStep,
  startNaiveServer,
} from './suites.js';

/** Concurrencies of the worker-alone steps: c=1 for latency, c=64 for batching. */
export const WORKER_ONLY_CONCURRENCIES = [1, 64];

/**
 * Runs `options.repeats` rounds. `full`: raw, naive, modelgate, worker alone; otherwise (the
 * `worker` suite) raw and the worker alone.
 */
export async function runSharedSuite(
  options: BenchOptions,
  plane: ControlPlane,
  deployment: Deployment,
  fixtureDir: string,
  full: boolean,
): Promise<SharedResult> {
  process.stdout.write(
    `shared cores: ${options.repeats} interleaved rounds of raw session.run` +
      `${full ? ', naive server, modelgate' : ''}, worker alone\n`,
  );
  let naive: NaiveServer | undefined;
  let stack: ModelgateStack | undefined;
  let worker: WorkerNode | undefined;
  try {
    if (full) {
      naive = await startNaiveServer(fixtureDir);
      stack = await startModelgate(plane, deployment, { gatewayWorkers: options.gatewayWorkers });
      worker = stack.worker;
    } else {
      worker = await startWorkerNode(plane, deployment);
    }
    const rounds: SharedRound[] = [];
    for (let index = 0; index < options.repeats; index++) {
      process.stdout.write(`round ${index + 1}/${options.repeats}\n`);
      const round: SharedRound = {
        raw: await measureRawLimit(options, fixtureDir, {
          batchSizes: options.batchSizes,
          intraOpThreads: options.intraOpThreads,
          instances: deployment.instances,
          label: '(a) raw session.run',
        }),
      };
      if (naive) {
        round.naive = [];
        for (const c of options.concurrencies) round.naive.push(await measureNaiveStep(options, naive, c));
      }
      if (stack) {
        round.modelgate = [];
        for (const c of options.concurrencies) {
          round.modelgate.push(await measureModelgateStep(options, stack, c, { system: 'modelgate' }));
        }
      }
      round.workerOnly = [];
      for (const c of WORKER_ONLY_CONCURRENCIES) {
        round.workerOnly.push(
          await measureWorkerStep(options, worker, fixtureDir, c, {
            system: 'worker (gRPC)',
            ...(plane.registryPid === undefined ? {} : { registryPid: plane.registryPid }),
          }),
        );
      }
      rounds.push(round);
    }
    return { gatewayWorkers: stack?.gatewayWorkers ?? 'n/a', rounds };
  } finally {
    await naive?.process.stop();
    if (stack) await stack.stop();
    else await worker?.stop();
  }
}
