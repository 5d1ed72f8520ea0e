/**
 * The pinned split (issue 11), as a deployment puts the model alone on its device and gateways on
 * CPU nodes: the worker (one intra-op thread) and the raw session.run reference on core 0; the
 * gateway (one event loop) and every load generator on core 1. It measures the worker's own
 * efficiency without the gateway's CPU in the way (worker alone over gRPC at c=64 vs raw best batch
 * on the same core) and the gateway's CPU per request on a core of its own. Rounds interleave raw,
 * worker and gateway steps, and a capacity step.
 *
 * The gateway's CPU per request at the model's rate (a few hundred requests/s) is mostly the cost
 * of waking an idle event loop for each arriving request, which this VM charges dearly: it says
 * little about how many requests a gateway core can carry. The capacity step measures that: the
 * gateway alone on its core, in front of a worker serving a small model (tiny-bert-sst2, the same
 * WordPiece vocabulary) that answers thousands of requests/s, with the load generator beside the
 * worker, so the gateway runs near its own limit.
 */
import { type BenchOptions } from './bench-options.js';
import { type PinnedResult, type PinnedRound, type Skipped } from './bench-results.js';
import { type ControlPlane, type Deployment } from './control-plane.js';
import { checkPinningSupport, treeAffinities } from './cpu-pinning.js';
import { type StepResult } from './load-step.js';
import { type ModelgateStack, startModelgate } from './modelgate-stack.js';
import { measureModelgateStep, measureRawLimit, measureWorkerStep } from './suites.js';

/** Core of the worker and the raw reference. */
const WORKER_CPUS = '0';
/** Core of the gateway and the load generators. */
const GATEWAY_CPUS = '1';
/** Enough requests in flight to fill the worker's batches. */
const PINNED_CONCURRENCY = 64;
/** The capacity step's model: small enough that its worker outruns one gateway core. */
const CAPACITY_FIXTURE = 'tiny-bert-sst2';
/** Requests in flight in the capacity step: enough to keep the gateway's core busy. */
const CAPACITY_CONCURRENCY = 128;

/**
 * The shared deployment as the pinned split runs it: its own model, worker group and endpoint, one
 * instance of one thread (whatever --instances and --intra-op-threads say: the split has one core).
 */
export function pinnedDeployment(shared: Deployment): Deployment {
  return {
    ...shared,
    model: `${shared.model}-pinned`,
    workerGroup: 'pinned',
    endpoint: `${shared.endpoint ?? 'sentiment'}-pinned`,
    intraOpThreads: 1,
    instances: 1,
  };
}

/** The capacity step's deployment: the pinned one's settings on the small model, its own group and endpoint. */
export function capacityDeployment(pinned: Deployment): Deployment {
  return {
    ...pinned,
    fixture: CAPACITY_FIXTURE,
    model: `${pinned.model}-capacity`,
    workerGroup: 'capacity',
    endpoint: `${pinned.endpoint ?? 'sentiment'}-capacity`,
    // The schema's batching: the pinned deployment's maxBatchSize fits minilm's batch curve on
    // this CPU; the small model stands in for a fast device, which batches big.
    batching: {},
  };
}

export async function runPinnedSuite(
  options: BenchOptions,
  plane: ControlPlane,
  deployment: Deployment,
  fixtureDir: string,
): Promise<PinnedResult | Skipped> {
  const support = checkPinningSupport();
  if (!support.ok) {
    process.stdout.write(`pinned split: skipped, ${support.reason}\n`);
    return { skipped: support.reason };
  }
  process.stdout.write(
    `pinned split: worker + raw on core ${WORKER_CPUS} (1 intra-op thread), gateway + load on core ${GATEWAY_CPUS}, ` +
      `${options.repeats} rounds\n`,
  );
  const split = {
    gatewayWorkers: '1',
    worker: { cpuList: WORKER_CPUS },
    gateway: { cpuList: GATEWAY_CPUS },
  };
  const stack = await startModelgate(plane, deployment, split);
  let capacityStack: ModelgateStack | undefined;
  try {
    capacityStack = await startModelgate(plane, capacityDeployment(deployment), split);
    const affinity = {
      worker: treeAffinities(stack.worker.pid),
      gateway: treeAffinities(stack.gateway.process.child.pid ?? -1),
    };
    await warmUpJit(options, stack, capacityStack, fixtureDir);
    const rounds: PinnedRound[] = [];
    for (let index = 0; index < options.repeats; index++) {
      process.stdout.write(`round ${index + 1}/${options.repeats}\n`);
      const raw = await measureRawLimit(options, fixtureDir, {
        batchSizes: options.batchSizes,
        intraOpThreads: deployment.intraOpThreads,
        cpuList: WORKER_CPUS,
        label: `raw session.run (core ${WORKER_CPUS})`,
      });
      const worker = await measureWorkerStep(options, stack.worker, fixtureDir, PINNED_CONCURRENCY, {
        system: `worker (gRPC, core ${WORKER_CPUS})`,
        loadCpuList: GATEWAY_CPUS,
        ...(plane.registryPid === undefined ? {} : { registryPid: plane.registryPid }),
      });
      const gateway = await measureModelgateStep(options, stack, PINNED_CONCURRENCY, {
        system: `modelgate (gateway core ${GATEWAY_CPUS})`,
        loadCpuList: GATEWAY_CPUS,
      });
      const capacity = await measureModelgateStep(options, capacityStack, CAPACITY_CONCURRENCY, {
        system: `modelgate capacity (gateway alone on core ${GATEWAY_CPUS})`,
        loadCpuList: WORKER_CPUS,
      });
      const gatewayCpuMsPerRequest = gatewayCpuPerRequest(gateway);
      const capacityGatewayCpuMsPerRequest = gatewayCpuPerRequest(capacity);
      process.stdout.write(
        `  worker ${(worker.load.throughput / raw.best.inferPerSec).toFixed(2)}× raw best; ` +
          `gateway CPU ${gatewayCpuMsPerRequest.toFixed(3)} ms per request at the model's rate, ` +
          `${capacityGatewayCpuMsPerRequest.toFixed(3)} ms at ${capacity.load.throughput.toFixed(0)} requests/s\n`,
      );
      rounds.push({ raw, worker, gateway, gatewayCpuMsPerRequest, capacity, capacityGatewayCpuMsPerRequest });
    }
    return {
      workerCpus: WORKER_CPUS,
      gatewayCpus: GATEWAY_CPUS,
      concurrency: PINNED_CONCURRENCY,
      capacity: { fixture: CAPACITY_FIXTURE, concurrency: CAPACITY_CONCURRENCY },
      affinity,
      rounds,
    };
  } finally {
    await capacityStack?.stop();
    await stack.stop();
  }
}

/**
 * Serves `options.jitWarmupRequests` requests through each of the split's paths at its steps'
 * concurrency before the first round, unmeasured (BenchOptions.jitWarmupRequests says why): on its
 * one core a fresh worker also spends a share of it compiling, which a server in service does not.
 */
async function warmUpJit(
  options: BenchOptions,
  stack: ModelgateStack,
  capacityStack: ModelgateStack,
  fixtureDir: string,
): Promise<void> {
  const amount = options.jitWarmupRequests;
  if (amount === 0) return;
  process.stdout.write(`JIT warm-up: ${amount} requests per path, unmeasured\n`);
  await measureWorkerStep(options, stack.worker, fixtureDir, PINNED_CONCURRENCY, {
    system: 'worker (JIT warm-up)',
    loadCpuList: GATEWAY_CPUS,
    amount,
  });
  await measureModelgateStep(options, stack, PINNED_CONCURRENCY, {
    system: 'modelgate (JIT warm-up)',
    loadCpuList: GATEWAY_CPUS,
    amount,
  });
  await measureModelgateStep(options, capacityStack, CAPACITY_CONCURRENCY, {
    system: 'capacity (JIT warm-up)',
    loadCpuList: WORKER_CPUS,
    amount,
  });
}

/** The gateway process tree's CPU ms per answered request of a step. */
function gatewayCpuPerRequest(step: StepResult): number {
  return (step.cpu.byParty.gateway ?? NaN) / step.load.ok;
}
