/**
 * The pinned split (issue 11), as a deployment puts the model alone on its device and gateways on
 * CPU nodes: the worker (one intra-op thread) and the raw session.run reference on core 0; the
 * gateway (one event loop) and every load generator on core 1. It measures the worker's own
 * efficiency without the gateway's CPU in the way (worker alone over gRPC at c=64 vs raw best batch
 * on the same core) and the gateway's CPU per request on a core of its own. Rounds interleave raw,
 * worker and gateway steps.
 */
import { type BenchOptions } from './bench-options.js';
import { type PinnedResult, type PinnedRound, type Skipped } from './bench-results.js';
import { type ControlPlane, type Deployment } from './control-plane.js';
import { checkPinningSupport, treeAffinities } from './cpu-pinning.js';
import { startModelgate } from './modelgate-stack.js';
import { measureModelgateStep, measureRawLimit, measureWorkerStep } from './suites.js';

/** Core of the worker and the raw reference. */
const WORKER_CPUS = '0';
/** Core of the gateway and the load generators. */
const GATEWAY_CPUS = '1';
/** Enough requests in flight to fill the worker's batches. */
const PINNED_CONCURRENCY = 64;

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
  const stack = await startModelgate(plane, deployment, {
    gatewayWorkers: '1',
    worker: { cpuList: WORKER_CPUS },
    gateway: { cpuList: GATEWAY_CPUS },
  });
  try {
    const affinity = {
      worker: treeAffinities(stack.worker.pid),
      gateway: treeAffinities(stack.gateway.process.child.pid ?? -1),
    };
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
      const gatewayCpuMsPerRequest = (gateway.cpu.byParty.gateway ?? NaN) / gateway.load.ok;
      process.stdout.write(
        `  worker ${(worker.load.throughput / raw.best.inferPerSec).toFixed(2)}× raw best; ` +
          `gateway CPU ${gatewayCpuMsPerRequest.toFixed(3)} ms per request\n`,
      );
      rounds.push({ raw, worker, gateway, gatewayCpuMsPerRequest });
    }
    return {
      workerCpus: WORKER_CPUS,
      gatewayCpus: GATEWAY_CPUS,
      concurrency: PINNED_CONCURRENCY,
      affinity,
      rounds,
    };
  } finally {
    await stack.stop();
  }
}
