/**
 * The shared-cores comparison (issues 8, 3 and 11): every party on the same cores, in interleaved
 * rounds — raw session.run, then the naive server's ladder, then modelgate's, then the worker
 * alone — so a neighbour's burst or a thermal drift lands on all systems alike rather than on
 * whichever happened to be measured then. Ratios are taken within a round.
 */
import { type BenchOptions } from './bench-options.js';
import { type SharedResult, type SharedRound } from './bench-results.js';
import { type ControlPlane, type Deployment } from './control-plane.js';
import {
  type ModelgateStack,
  type ServingStack,
  type WorkerNode,
  startColocated,
  startModelgate,
  startWorkerNode,
} from './modelgate-stack.js';
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
  let colocated: ServingStack | undefined;
  let worker: WorkerNode | undefined;
  try {
    if (full) {
      naive = await startNaiveServer(fixtureDir);
      stack = await startModelgate(plane, deployment, { gatewayWorkers: options.gatewayWorkers });
      worker = stack.worker;
      colocated = await startColocated(plane, colocatedDeployment(deployment));
    } else {
      worker = await startWorkerNode(plane, deployment);
    }
    await warmUpJit(options, { naive, stack, colocated, worker, fixtureDir });
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
      if (colocated) {
        round.colocated = [];
        for (const c of options.concurrencies) {
          round.colocated.push(
            await measureModelgateStep(options, colocated, c, { system: 'modelgate co-located' }),
          );
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
    await colocated?.stop();
    if (stack) await stack.stop();
    else await worker?.stop();
  }
}

/**
 * Serves `options.jitWarmupRequests` requests at c=1 through each system before its first measured
 * step, unmeasured (BenchOptions.jitWarmupRequests says why): modelgate through its gateway (which
 * warms the worker's call path too), the naive server alike, and the worker over gRPC when no
 * gateway stands in front of it. Raw session.run needs none: its loop is a few lines.
 */
async function warmUpJit(
  options: BenchOptions,
  systems: {
    naive?: NaiveServer;
    stack?: ModelgateStack;
    colocated?: ServingStack | undefined;
    worker: WorkerNode;
    fixtureDir: string;
  },
): Promise<void> {
  const amount = options.jitWarmupRequests;
  if (amount === 0) return;
  process.stdout.write(`JIT warm-up: ${amount} requests at c=1 per system, unmeasured\n`);
  if (systems.naive) await measureNaiveStep(options, systems.naive, 1, amount);
  if (systems.stack) {
    await measureModelgateStep(options, systems.stack, 1, { system: 'modelgate (JIT warm-up)', amount });
    if (systems.colocated) {
      await measureModelgateStep(options, systems.colocated, 1, {
        system: 'modelgate co-located (JIT warm-up)',
        amount,
      });
    }
  } else {
    await measureWorkerStep(options, systems.worker, systems.fixtureDir, 1, {
      system: 'worker (JIT warm-up)',
      amount,
    });
  }
}

/**
 * The co-located stack's deployment: the shared one under names of its own (model, endpoint,
 * worker group), so neither gateway discovers the other's worker.
 */
function colocatedDeployment(deployment: Deployment): Deployment {
  return {
    ...deployment,
    model: `${deployment.model}-co`,
    workerGroup: `${deployment.workerGroup}-co`,
    ...(deployment.endpoint === undefined ? {} : { endpoint: `${deployment.endpoint}-co` }),
  };
}
