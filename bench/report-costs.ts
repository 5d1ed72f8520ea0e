/**
 * The results page's cost sections: where the time goes per request (Server-Timing, worker
 * batching), CPU per party, the worker alone (issue 3) and the gateway (issue 4).
 */
import { type BenchResults, failedRequests } from './bench-results.js';
import { type StepResult } from './load-step.js';
import { fmt, otherCell, ratio, table } from './report-format.js';

function stageCell(step: StepResult, stage: string): string {
  return fmt(step.load.stages.meanMs[stage]);
}

export function timeSection(results: BenchResults): string {
  const steps = results.modelgate?.steps ?? [];
  if (steps.length === 0) return '';
  return [
    '## Where the time goes (modelgate, mean per request, ms)',
    '',
    'Server-Timing of every 2xx answer, averaged: tokenize, queue (worker batcher), infer (gRPC round trip minus queue: ' +
      'compute + transport), post, total (gateway handler). "outside" = client latency − total: HTTP, Fastify, ' +
      'event-loop waits and the load generator.',
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
        ];
      }),
    ),
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
  const steps = [
    ...(results.naive ?? []),
    ...(results.modelgate?.steps ?? []),
    ...(results.workerOnly ?? []),
    ...(results.gateway?.cpuSteps.map((c) => c.step) ?? []),
    ...(results.gateway?.clusterSteps.map((c) => c.step) ?? []),
  ];
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

export function workerSection(results: BenchResults): string {
  const steps = results.workerOnly;
  if (!steps?.length || !results.raw) return '';
  const b1 = results.raw.batches.find((b) => b.batchSize === 1);
  const best = results.raw.best;
  return [
    '## Worker alone (issue 3): OIP ModelInfer over gRPC vs raw session.run, same run',
    '',
    table(
      [
        'c',
        'infer/s',
        '× raw batch 1',
        `× raw best (batch ${best.batchSize})`,
        'p50 ms',
        'p99 ms',
        'rows/batch',
        'queue ms',
        'compute ms/batch',
        'worker CPU ms/req',
        'failed',
        'other cores',
      ],
      steps.map((s) => [
        String(s.load.concurrency),
        fmt(s.load.throughput, 1),
        ratio(s.load.throughput, b1?.inferPerSec),
        ratio(s.load.throughput, best.inferPerSec),
        fmt(s.load.latency.p50),
        fmt(s.load.latency.p99),
        fmt(s.worker?.meanBatchRows),
        fmt(s.load.stages.meanMs.queue),
        fmt(s.worker?.meanComputeMsPerBatch),
        fmt((s.cpu.byParty.worker ?? NaN) / s.load.ok, 3),
        String(failedRequests(s)),
        otherCell(s.otherCores, s.attempts),
      ]),
    ),
    '',
    `Raw batch 1: ${fmt(b1?.inferPerSec, 1)} infer/s, p50 ${fmt(b1?.latency.p50)} ms; raw best: ${fmt(best.inferPerSec, 1)} infer/s.`,
  ].join('\n');
}

export function gatewaySection(results: BenchResults): string {
  const g = results.gateway;
  if (!g) return '';
  const lines = ['## Gateway (issue 4)', ''];
  lines.push(
    table(
      [
        'GATEWAY_WORKERS',
        `gateway CPU ms/request (c=8, ${g.cpuSteps[0]?.step.load.ok ?? '?'} requests)`,
        'worker CPU ms/request',
        'c=32 infer/s',
        'c=32 p50 ms',
        'c=32 p99 ms',
        'failed',
      ],
      g.cpuSteps.map((c) => {
        const cluster = g.clusterSteps.find((s) => s.gatewayWorkers === c.gatewayWorkers)?.step;
        return [
          c.gatewayWorkers,
          fmt(c.gatewayCpuMsPerRequest, 3),
          fmt((c.step.cpu.byParty.worker ?? NaN) / c.step.load.ok, 3),
          fmt(cluster?.load.throughput, 1),
          fmt(cluster?.load.latency.p50),
          fmt(cluster?.load.latency.p99),
          cluster ? String(failedRequests(cluster) + failedRequests(c.step)) : 'n/a',
        ];
      }),
    ),
  );
  if (g.c1) {
    const s = g.c1.step;
    lines.push(
      '',
      `c=1, gateway + worker: p50 **${fmt(s.load.latency.p50)} ms** vs raw session.run batch 1 p50 **${fmt(g.c1.rawBatch1P50Ms)} ms** ` +
        `(+${fmt(s.load.latency.p50 - g.c1.rawBatch1P50Ms)} ms). Server-Timing means: ` +
        Object.entries(s.load.stages.meanMs)
          .map(([stage, ms]) => `${stage} ${fmt(ms)}`)
          .join(', ') +
        '.',
    );
    const compute = s.worker?.meanComputeMsPerBatch;
    const stage = (name: string) => s.load.stages.meanMs[name] ?? NaN;
    if (compute !== undefined) {
      lines.push(
        '',
        `Mean c=1 latency ${fmt(s.load.latency.mean)} ms = model compute ${fmt(compute)} (worker's own timer) + ` +
          `gRPC round trip and worker handling ${fmt(stage('infer') - compute)} (infer − compute) + worker queue ` +
          `${fmt(stage('queue'))} + tokenize ${fmt(stage('tokenize'))} + post ${fmt(stage('post'))} + HTTP, Fastify ` +
          `and the load generator ${fmt(s.load.latency.mean - stage('total'))} (client − total).`,
      );
    }
  }
  lines.push(
    '',
    'On 2 cores the gateway event loops, the worker (onnxruntime threads + its event loop) and the load generator all ' +
      'compete for the same cores: a second gateway event loop can only help when the CPU it frees is not needed by the ' +
      'model. Read the "machine busy" column: near 2.00 means the machine, not the gateway, is the limit.',
  );
  return lines.join('\n');
}

/** The results page. */
