/**
 * The results page's cost sections: where the time goes per request (Server-Timing, worker
 * batching), CPU per party, and the gateway (issue 4). Tables show the repeat with the median
 * throughput of each step; ranges are median (min–max) over the rounds.
 */
import {
  type BenchResults,
  type GatewayRoundEntry,
  failedRequests,
  medianRound,
  medianSteps,
  overRounds,
  wasSkipped,
} from './bench-results.js';
import { type StepResult } from './load-step.js';
import { fmt, otherCell, soloCell, spreadCell, table } from './report-format.js';

function stageCell(step: StepResult, stage: string): string {
  return fmt(step.load.stages.meanMs[stage]);
}

/** The c=1 request taken apart: model compute, gRPC and worker handling, gateway stages, HTTP. */
function c1Breakdown(step: StepResult | undefined): string {
  const compute = step?.worker?.meanComputeMsPerBatch;
  if (!step || compute === undefined) return '';
  const stage = (name: string) => step.load.stages.meanMs[name] ?? NaN;
  return (
    `Mean c=1 latency ${fmt(step.load.latency.mean)} ms = model compute ${fmt(compute)} (worker's own timer) + ` +
    `gRPC round trip and worker handling ${fmt(stage('infer') - compute)} (infer − compute) + worker queue ` +
    `${fmt(stage('queue'))} + tokenize ${fmt(stage('tokenize'))} + post ${fmt(stage('post'))} + HTTP, Fastify ` +
    `and the load generator ${fmt(step.load.latency.mean - stage('total'))} (client − total).`
  );
}

export function timeSection(results: BenchResults): string {
  const steps = medianSteps(results.shared?.rounds ?? [], (r) => r.modelgate);
  if (steps.length === 0) return '';
  return [
    '## Where the time goes (modelgate, mean per request, ms)',
    '',
    'Server-Timing of every 2xx answer, averaged: tokenize, queue (worker batcher), infer (gRPC round trip minus queue: ' +
      'compute + transport), post, total (gateway handler). "outside" = client latency − total: HTTP, Fastify, ' +
      'event-loop waits and the load generator. "solo batches": the share of batches the worker ran on its ' +
      'solo session (a thread per core), the rest on an instance.',
    '',
    table(
      [
        'c',
        'client mean',
        'total',
        'tokenize',
        'queue',
        'infer',
        'post',
        'outside',
        'rows/batch',
        'worker queue',
        'compute/batch',
        'compute/row',
        'solo batches',
      ],
      steps.map((s) => {
        const mean = s.load.latency.mean;
        const total = s.load.stages.meanMs.total;
        const w = s.worker;
        return [
          String(s.load.concurrency),
          fmt(mean),
          fmt(total),
          stageCell(s, 'tokenize'),
          stageCell(s, 'queue'),
          stageCell(s, 'infer'),
          stageCell(s, 'post'),
          total !== undefined ? fmt(mean - total) : 'n/a',
          fmt(w?.meanBatchRows),
          fmt(w?.meanQueueMs),
          fmt(w?.meanComputeMsPerBatch),
          w ? fmt(w.meanComputeMsPerBatch / w.meanBatchRows) : 'n/a',
          soloCell(w),
        ];
      }),
    ),
    '',
    c1Breakdown(steps.find((s) => s.load.concurrency === 1)),
  ].join('\n');
}

/** CPU ms per answered request of the serving processes (every party but the load generator). */
function servingCpuMsPerRequest(step: StepResult): number {
  const serving = Object.entries(step.cpu.byParty)
    .filter(([party]) => party !== 'load generator')
    .reduce((sum, [, ms]) => sum + ms, 0);
  return serving / Math.max(1, step.load.ok);
}

function cpuRows(steps: (StepResult & { cores: number })[]): string[][] {
  return steps.map((s) => {
    const perRequest = (party: string) => {
      const ms = s.cpu.byParty[party];
      return ms === undefined ? '-' : fmt(ms / Math.max(1, s.load.ok), 3);
    };
    const servingMs = servingCpuMsPerRequest(s);
    return [
      s.system,
      String(s.load.concurrency),
      perRequest('gateway'),
      perRequest('worker'),
      perRequest('naive server'),
      perRequest('registry'),
      perRequest('load generator'),
      fmt(servingMs, 3),
      fmt(
        (s.cores * 1000) / (servingMs + (s.cpu.byParty['load generator'] ?? 0) / Math.max(1, s.load.ok)),
        0,
      ),
      fmt(s.cpu.machineMs / s.cpu.wallMs),
      otherCell(s.otherCores, s.attempts),
    ];
  });
}

export function cpuSection(results: BenchResults): string {
  const shared = results.shared?.rounds ?? [];
  const steps = [
    ...medianSteps(shared, (r) => r.naive),
    ...medianSteps(shared, (r) => r.modelgate),
    ...medianSteps(shared, (r) => r.workerOnly),
    ...gatewayEntries(results).flatMap((e) => [e.cpuStep, e.clusterStep]),
  ];
  const pinned = results.pinned;
  if (pinned && !wasSkipped(pinned)) {
    steps.push(
      ...medianSteps(pinned.rounds, (r) => [r.worker]),
      ...medianSteps(pinned.rounds, (r) => [r.gateway]),
    );
  }
  const mixed = results.mixed;
  if (mixed && !wasSkipped(mixed)) {
    steps.push(
      ...medianSteps(mixed.rounds, (r) => [r.modelgate]),
      ...medianSteps(mixed.rounds, (r) => [r.padToLongest]),
    );
  }
  if (steps.length === 0) return '';
  return [
    '## CPU per request by party (ms, /proc utime+stime over the measured window)',
    '',
    'CPU per request moves far less with neighbours than throughput does. "serving total" is every serving ' +
      'process (gateway + worker + registry, or the naive server); the ceiling divides the whole machine by ' +
      'serving total + load generator: what that cost allows on idle cores (an upper bound: onnxruntime with ' +
      'spinning off leaves gaps).',
    '',
    table(
      [
        'step',
        'c',
        'gateway',
        'worker',
        'naive server',
        'registry',
        'load generator',
        'serving total',
        `CPU ceiling infer/s (${results.meta.cores} cores ÷ CPU per request)`,
        'machine busy (cores)',
        'other (cores)',
      ],
      cpuRows(steps.map((step) => ({ ...step, cores: results.meta.cores }))),
    ),
  ].join('\n');
}

/** Per GATEWAY_WORKERS value, the round entry with the median CPU per request. */
function gatewayEntries(results: BenchResults): GatewayRoundEntry[] {
  const rounds = results.gateway?.rounds ?? [];
  const values = rounds[0]?.map((e) => e.gatewayWorkers) ?? [];
  return values.flatMap((workers) => {
    const entries = rounds.flatMap((round) => round.filter((e) => e.gatewayWorkers === workers));
    const median = medianRound(entries, (e) => e.gatewayCpuMsPerRequest);
    return median ? [median] : [];
  });
}

export function gatewaySection(results: BenchResults): string {
  const rounds = results.gateway?.rounds ?? [];
  if (rounds.length === 0) return '';
  const entriesOf = (workers: string) =>
    rounds.flatMap((round) => round.filter((e) => e.gatewayWorkers === workers));
  return [
    '## Gateway on shared cores (issue 4): GATEWAY_WORKERS 1 vs 2',
    '',
    table(
      [
        'GATEWAY_WORKERS',
        `gateway CPU ms/request (c=8, ${rounds[0]?.[0]?.cpuStep.load.ok ?? '?'} requests)`,
        'worker CPU ms/request',
        'c=32 infer/s',
        'c=32 p50 ms',
        'c=32 p99 ms',
        'failed',
      ],
      gatewayEntries(results).map((median) => {
        const all = entriesOf(median.gatewayWorkers);
        return [
          median.gatewayWorkers,
          spreadCell(
            overRounds(all, (e) => e.gatewayCpuMsPerRequest),
            3,
          ),
          fmt((median.cpuStep.cpu.byParty.worker ?? NaN) / median.cpuStep.load.ok, 3),
          spreadCell(
            overRounds(all, (e) => e.clusterStep.load.throughput),
            1,
          ),
          fmt(median.clusterStep.load.latency.p50),
          fmt(median.clusterStep.load.latency.p99),
          String(all.reduce((sum, e) => sum + failedRequests(e.cpuStep) + failedRequests(e.clusterStep), 0)),
        ];
      }),
    ),
    '',
    'On 2 cores the gateway event loops, the worker (onnxruntime threads + its event loop) and the load generator all ' +
      'compete for the same cores: a second gateway event loop can only help when the CPU it frees is not needed by the ' +
      'model. Read the "machine busy" column below: near 2.00 means the machine, not the gateway, is the limit.',
  ].join('\n');
}
