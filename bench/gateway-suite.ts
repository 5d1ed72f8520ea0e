/**
 * The gateway's cost on shared cores (issue 4): CPU per request from a fixed number of requests at
 * c=8 (/proc utime+stime of the gateway's process tree) and c=32 throughput, for GATEWAY_WORKERS
 * 1 and 2, alternating within each round; the gateway restarts between.
 */
import { type BenchOptions } from './bench-options.js';
import { type GatewayRoundEntry, type GatewaySuiteResult } from './bench-results.js';
import { type ControlPlane, type Deployment } from './control-plane.js';
import { startModelgate } from './modelgate-stack.js';
import { measureModelgateStep } from './suites.js';

/** The GATEWAY_WORKERS values compared. */
const GATEWAY_WORKER_COUNTS = ['1', '2'];

export async function runGatewaySuite(
  options: BenchOptions,
  plane: ControlPlane,
  deployment: Deployment,
): Promise<GatewaySuiteResult> {
  process.stdout.write(
    `gateway: GATEWAY_WORKERS ${GATEWAY_WORKER_COUNTS.join(' vs ')}, ${options.repeats} rounds\n`,
  );
  const stack = await startModelgate(plane, deployment, { gatewayWorkers: GATEWAY_WORKER_COUNTS[0] ?? '1' });
  try {
    const rounds: GatewayRoundEntry[][] = [];
    for (let index = 0; index < options.repeats; index++) {
      process.stdout.write(`round ${index + 1}/${options.repeats}\n`);
      const round: GatewayRoundEntry[] = [];
      for (const workers of GATEWAY_WORKER_COUNTS) {
        if (stack.gatewayWorkers !== workers) await stack.restartGateway(workers);
        const system = `modelgate (GATEWAY_WORKERS=${workers})`;
        const cpuStep = await measureModelgateStep(options, stack, 8, {
          system,
          amount: options.cpuRequests,
        });
        const gatewayCpuMsPerRequest = (cpuStep.cpu.byParty.gateway ?? NaN) / cpuStep.load.ok;
        process.stdout.write(`  gateway CPU ${gatewayCpuMsPerRequest.toFixed(3)} ms per request\n`);
        const clusterStep = await measureModelgateStep(options, stack, 32, { system });
        round.push({ gatewayWorkers: workers, cpuStep, gatewayCpuMsPerRequest, clusterStep });
      }
      rounds.push(round);
    }
    return { rounds };
  } finally {
    await stack.stop();
  }
}
