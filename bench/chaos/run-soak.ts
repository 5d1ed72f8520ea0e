/**
 * The soak (issue 45, drill 4): the mixed load (soak-load-child.ts) for `minutes`, a config change
 * every minute (soak-changes.ts), and every process of the fleet sampled every SAMPLE_INTERVAL_S
 * (soak-sampler.ts). After the warm-up each process's RSS, heap and file descriptors must stay flat
 * (soak-analysis.ts); no request may fail and every change must reach the whole fleet.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnChild } from '../child-process.js';
import { type ChaosStack } from './chaos-stack.js';
import { epochMs } from './load-records.js';
import { type ProcessSample, type ProcessVerdict, judgeProcess } from './soak-analysis.js';
import { type SoakChangeRecord, SoakChanges } from './soak-changes.js';
import { type SoakLoadConfig } from './soak-load-child.js';
import { SOAK_KINDS, SOAK_TRAFFIC, type SoakKind } from './soak-mix.js';
import { sampleProcess } from './soak-sampler.js';
import { type KindTally, latencyPercentileMs } from './soak-tally.js';

/** Seconds between two readings of every process. */
export const SAMPLE_INTERVAL_S = 10;
/** The longest warm-up, minutes; a shorter soak warms up for a sixth of its length. */
const MAX_WARMUP_MINUTES = 5;
const REQUEST_TIMEOUT_MS = 60_000;

const LOAD_CHILD = new URL('./soak-load-child.ts', import.meta.url).pathname;

/** The warm-up of a soak of `minutes`, in minutes. */
export function warmupMinutesOf(minutes: number): number {
  return Math.min(MAX_WARMUP_MINUTES, minutes / 6);
}

/** One kind of traffic, summed up. */
export interface SoakTraffic extends Omit<KindTally, 'latencyBuckets'> {
  clients: number;
  path: string;
  p50Ms: number;
  p99Ms: number;
}

/** The soak's result. */
export interface SoakResult {
  startedAt: string;
  minutes: number;
  warmupMinutes: number;
  sampleIntervalS: number;
  traffic: Record<SoakKind, SoakTraffic>;
  changes: SoakChangeRecord[];
  processes: ProcessVerdict[];
  /** Every reading, by process, for the JSON (times in seconds after the load started). */
  samples: Record<string, (Omit<ProcessSample, 'atMs'> & { atS: number })[]>;
  /** Something in the soak itself went wrong; its figures are partial. */
  error?: string;
  passed: boolean;
}

/** Readings of the fleet, by process name, and the pids each name has had. */
class FleetSampler {
  readonly samples = new Map<string, ProcessSample[]>();
  readonly pids = new Map<string, Set<number>>();

  constructor(private readonly stack: ChaosStack) {}

  async sample(): Promise<void> {
    await Promise.all(
      this.stack.processes().map(async (process) => {
        const reading = await sampleProcess(process).catch(() => undefined);
        if (reading === undefined) return;
        if (!this.samples.has(process.name)) this.samples.set(process.name, []);
        this.samples.get(process.name)!.push(reading);
        if (!this.pids.has(process.name)) this.pids.set(process.name, new Set());
        this.pids.get(process.name)!.add(process.pid);
      }),
    );
  }
}

function summarizeTraffic(tallies: Record<string, KindTally>): Record<SoakKind, SoakTraffic> {
  return Object.fromEntries(
    SOAK_KINDS.map((kind) => {
      const { latencyBuckets: _buckets, ...counts } = tallies[kind]!;
      return [
        kind,
        {
          ...SOAK_TRAFFIC[kind],
          ...counts,
          p50Ms: latencyPercentileMs(tallies[kind]!, 0.5),
          p99Ms: latencyPercentileMs(tallies[kind]!, 0.99),
        },
      ];
    }),
  ) as Record<SoakKind, SoakTraffic>;
}

/** Runs the soak for `minutes` against `stack` (whole, with SOAK_DEPLOYMENTS); `dir`: scratch files. */
export async function runSoak(stack: ChaosStack, minutes: number, dir: string): Promise<SoakResult> {
  const startedAt = new Date().toISOString();
  const config: SoakLoadConfig = { gateways: [...stack.gatewayUrls], requestTimeoutMs: REQUEST_TIMEOUT_MS };
  const load = spawnChild(LOAD_CHILD, config);
  const sampler = new FleetSampler(stack);
  const changes: SoakChangeRecord[] = [];
  let loadStartMs = epochMs();
  let error: string | undefined;
  let sampling: NodeJS.Timeout | undefined;
  try {
    await load.marked('sending');
    loadStartMs = epochMs();
    await sampler.sample();
    sampling = setInterval(() => void sampler.sample(), SAMPLE_INTERVAL_S * 1000);
    const soakChanges = new SoakChanges(stack, dir, loadStartMs);
    for (let minute = 1; minute < minutes; minute++) {
      const wait = loadStartMs + minute * 60_000 - epochMs();
      if (wait > 0) await sleep(wait);
      const record = await soakChanges.next();
      changes.push(record);
      process.stdout.write(
        `  soak minute ${minute}: ${record.change}${record.error ? ` FAILED: ${record.error}` : ` (fleet at it in ${record.settledS} s)`}\n`,
      );
    }
    const left = loadStartMs + minutes * 60_000 - epochMs();
    if (left > 0) await sleep(left);
  } catch (caught) {
    error = caught instanceof Error ? caught.message.slice(0, 2000) : String(caught);
  }
  clearInterval(sampling);
  await load.stop(REQUEST_TIMEOUT_MS + 15_000);
  const tallies = (await load.result) as Record<string, KindTally>;
  const warmupMinutes = warmupMinutesOf(minutes);
  const warmupEndMs = loadStartMs + warmupMinutes * 60_000;
  const byName = [...sampler.samples].sort(([a], [b]) => a.localeCompare(b));
  const processes = byName.map(([name, samples]) =>
    judgeProcess(name, samples, warmupEndMs, (sampler.pids.get(name)?.size ?? 1) > 1),
  );
  const traffic = summarizeTraffic(tallies);
  const failed = SOAK_KINDS.reduce(
    (sum, kind) => sum + Object.values(traffic[kind].failed).reduce((a, b) => a + b, 0),
    0,
  );
  const atS = (ms: number) => Math.round(ms - loadStartMs) / 1000;
  return {
    startedAt,
    minutes,
    warmupMinutes,
    sampleIntervalS: SAMPLE_INTERVAL_S,
    traffic,
    changes,
    processes,
    samples: Object.fromEntries(
      byName.map(([name, samples]) => [
        name,
        samples.map(({ atMs, ...rest }) => ({ atS: atS(atMs), ...rest })),
      ]),
    ),
    ...(error !== undefined ? { error } : {}),
    passed:
      error === undefined &&
      failed === 0 &&
      changes.every((change) => change.error === undefined) &&
      processes.every((verdict) => verdict.problems.length === 0),
  };
}
