/**
 * The measurements, one function each: (a) raw session.run, (b) the naive server's ladder,
 * (c) modelgate's ladder, the worker alone over gRPC, and the gateway's cost and multi-core
 * choice. Each starts and stops what it measures, except modelgate, which the caller shares.
 */
import { freePort, waitFor } from '@modelgate/testing';
import { type BenchOptions } from './bench-options.js';
import { type BenchResults, type GatewaySuiteResult, bestBatch } from './bench-results.js';
import { childScript, runChild, spawnChild } from './child-process.js';
import { type NaiveServerConfig } from './children/naive-server.js';
import { type RawSessionRunConfig, type RawSessionRunResult } from './children/raw-session-run.js';
import { type StepResult, runLoadStep } from './load-step.js';
import { type ModelgateStack } from './modelgate-stack.js';
import { SENTENCES } from './sentences.js';

/** (a) raw onnxruntime at every batch size, in its own process. */
export async function measureRawLimit(
  options: BenchOptions,
  fixtureDir: string,
  batchSizes: number[],
): Promise<NonNullable<BenchResults['raw']>> {
  process.stdout.write(`(a) raw session.run, batch sizes ${batchSizes.join(', ')}\n`);
  const config: RawSessionRunConfig = {
    fixtureDir,
    intraOpThreads: options.intraOpThreads,
    batchSizes,
    durationS: options.durationS,
    warmupS: Math.min(1, options.warmupS),
    sentences: [...SENTENCES],
  };
  const raw = await runChild<RawSessionRunResult>(childScript('raw-session-run.ts'), config);
  for (const batch of raw.batches) {
    process.stdout.write(
      `  batch ${String(batch.batchSize).padStart(2)}  ${batch.inferPerSec.toFixed(1).padStart(7)} infer/s  ` +
        `run p50 ${batch.latency.p50.toFixed(2)}  p99 ${batch.latency.p99.toFixed(2)} ms\n`,
    );
  }
  const best = bestBatch(raw.batches);
  if (!best) throw new Error('raw session.run measured no batch size');
  process.stdout.write(
    `  best batch ${best.batchSize}: ${best.inferPerSec.toFixed(1)} infer/s (the limit)\n`,
  );
  return { ...raw, best };
}

/** (b) the naive Fastify + transformers.js pipeline server over the concurrency ladder. */
export async function measureNaive(options: BenchOptions, fixtureDir: string): Promise<StepResult[]> {
  process.stdout.write('(b) naive server: Fastify + transformers.js pipeline per request\n');
  const port = await freePort();
  const config: NaiveServerConfig = { fixtureDir, port };
  const server = spawnChild(childScript('naive-server.ts'), config);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(async () => (await fetch(`${url}/health`)).ok, {
      timeoutMs: 60_000,
      describe: () => server.output(),
    });
    const steps: StepResult[] = [];
    for (const concurrency of options.concurrencies) {
      steps.push(
        await runLoadStep(
          'naive',
          { kind: 'http', config: httpConfig(options, url, '/classify', concurrency) },
          { parties: { 'naive server': server.pid } },
        ),
      );
    }
    return steps;
  } finally {
    await server.stop();
  }
}

function httpConfig(options: BenchOptions, url: string, path: string, concurrency: number, amount?: number) {
  return {
    url,
    path,
    concurrency,
    durationS: options.durationS,
    warmupS: options.warmupS,
    sentences: [...SENTENCES],
    ...(amount !== undefined ? { amount } : {}),
  };
}

function stackProbes(stack: ModelgateStack) {
  const parties: Record<string, number> = {
    gateway: stack.gateway.process.child.pid ?? -1,
    worker: stack.worker.process.child.pid ?? -1,
  };
  if (stack.config.registryPid !== undefined) parties.registry = stack.config.registryPid;
  return { parties, workerCounters: () => stack.workerCounters() };
}

/** One HTTP step against modelgate's /serve/<endpoint>. */
export function measureModelgateStep(
  options: BenchOptions,
  stack: ModelgateStack,
  system: string,
  concurrency: number,
  amount?: number,
): Promise<StepResult> {
  const config = httpConfig(
    options,
    stack.gateway.url,
    `/serve/${stack.deployment.endpoint}`,
    concurrency,
    amount,
  );
  return runLoadStep(system, { kind: 'http', config }, stackProbes(stack));
}

/** (c) modelgate end to end over the concurrency ladder. */
export async function measureModelgate(options: BenchOptions, stack: ModelgateStack): Promise<StepResult[]> {
  process.stdout.write(`(c) modelgate: gateway (GATEWAY_WORKERS=${stack.gatewayWorkers}) + worker\n`);
  const steps: StepResult[] = [];
  for (const concurrency of options.concurrencies) {
    steps.push(await measureModelgateStep(options, stack, 'modelgate', concurrency));
  }
  return steps;
}

/** The worker alone, over gRPC with pre-tokenized tensors, at concurrency 1 and 64. */
export async function measureWorkerOnly(
  options: BenchOptions,
  stack: ModelgateStack,
  fixtureDir: string,
): Promise<StepResult[]> {
  process.stdout.write('worker alone: OIP ModelInfer over gRPC, raw_input_contents\n');
  const steps: StepResult[] = [];
  for (const concurrency of [1, 64]) {
    const config = {
      address: stack.worker.grpcAddress,
      model: stack.deployment.model,
      fixtureDir,
      concurrency,
      durationS: options.durationS,
      warmupS: options.warmupS,
      sentences: [...SENTENCES],
    };
    steps.push(
      await runLoadStep(
        'worker (gRPC)',
        { kind: 'grpc', config },
        {
          parties: { worker: stack.worker.process.child.pid ?? -1 },
          workerCounters: () => stack.workerCounters(),
        },
      ),
    );
  }
  return steps;
}

/**
 * Gateway CPU per request (a fixed number of requests at c=8, /proc utime+stime of the gateway
 * process tree) and c=32 throughput, for each GATEWAY_WORKERS value; the gateway restarts between.
 */
export async function measureGatewayCost(
  options: BenchOptions,
  stack: ModelgateStack,
  gatewayWorkers: string[],
): Promise<Omit<GatewaySuiteResult, 'c1'>> {
  const cpuSteps: GatewaySuiteResult['cpuSteps'] = [];
  const clusterSteps: GatewaySuiteResult['clusterSteps'] = [];
  const initialWorkers = stack.gatewayWorkers;
  for (const workers of gatewayWorkers) {
    process.stdout.write(`gateway: GATEWAY_WORKERS=${workers}\n`);
    if (stack.gatewayWorkers !== workers) await stack.restartGateway(workers);
    const system = `modelgate (GATEWAY_WORKERS=${workers})`;
    const step = await measureModelgateStep(options, stack, system, 8, options.cpuRequests);
    const gatewayCpuMsPerRequest = (step.cpu.byParty.gateway ?? NaN) / step.load.ok;
    process.stdout.write(`  gateway CPU ${gatewayCpuMsPerRequest.toFixed(3)} ms per request\n`);
    cpuSteps.push({ gatewayWorkers: workers, step, gatewayCpuMsPerRequest });
    clusterSteps.push({
      gatewayWorkers: workers,
      step: await measureModelgateStep(options, stack, system, 32),
    });
  }
  if (stack.gatewayWorkers !== initialWorkers) await stack.restartGateway(initialWorkers);
  return { cpuSteps, clusterSteps };
}
