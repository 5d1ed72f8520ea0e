/**
 * One drill's timeline, with the load running from start to end:
 *
 *   warm-up (2 s) → steady load (5 s) → fault → config change (1 s into a process fault, 5 s into
 *   an outage, at most halfway) → repair (10 s after the fault, or --down-seconds) → the change
 *   again if it was refused → every node at the change's revision → recovery (5 s) → load stops
 *
 * then the load's records become the drill's figures (drill-analysis.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnChild } from '../child-process.js';
import { SENTENCES } from '../sentences.js';
import { CONCURRENCY } from './chaos-options.js';
import { type ChaosStack, DEPLOYMENT } from './chaos-stack.js';
import { type CanaryWeights, type ChangeAttempt, type ChangeOutcome, ConfigChange } from './config-change.js';
import { type LoadSummary, summarizeLoad } from './drill-analysis.js';
import { type Drill, type DrillFindings, type DrillName, REPLACEMENT_AFTER_S } from './drills.js';
import { type ChaosLoadConfig } from './load-child.js';
import {
  type LoadRecords,
  OK,
  type ReadinessChange,
  decodeReadiness,
  decodeRequests,
  epochMs,
} from './load-records.js';

const WARMUP_S = 2;
const STEADY_S = 5;
const RECOVERY_S = 5;
/** The load's readiness poll, about a kubelet's probe period scaled to the drill. */
const READINESS_INTERVAL_MS = 500;
/** A kubelet probe's default timeoutSeconds. */
const PROBE_TIMEOUT_MS = 1000;
const REQUEST_TIMEOUT_MS = 30_000;
/** Failed requests kept in the JSON per drill, for evidence. */
const FAILED_SAMPLES = 200;

const LOAD_CHILD = new URL('./load-child.ts', import.meta.url).pathname;

/** The config change as a drill reports it: times in seconds after the fault. */
export type ChangeReport = Omit<ChangeOutcome, 'duringFault' | 'afterRepair' | 'reachedRunningNodesAtMs'> & {
  duringFault: { atS: number; answer: string };
  afterRepair: { atS: number; answer: string }[];
  /** Seconds from the accepted change until every node running then had applied it. */
  reachedRunningNodesS?: number;
};

function reportChange(outcome: ChangeOutcome, sinceFault: (ms: number) => number): ChangeReport {
  const { duringFault, afterRepair, reachedRunningNodesAtMs, ...rest } = outcome;
  const acceptedAtMs = (afterRepair.at(-1) ?? duringFault).atMs;
  const atS = (attempt: ChangeAttempt) => ({ atS: sinceFault(attempt.atMs), answer: attempt.answer });
  return {
    ...rest,
    duringFault: atS(duringFault),
    afterRepair: afterRepair.map(atS),
    ...(reachedRunningNodesAtMs !== undefined
      ? { reachedRunningNodesS: Math.round(reachedRunningNodesAtMs - acceptedAtMs) / 1000 }
      : {}),
  };
}

/** One drill's result. */
export interface DrillResult {
  drill: DrillName;
  fault: string;
  startedAt: string;
  /** Seconds from the fault to the repair, to the change reaching the whole fleet, to the end of load. */
  timeline: { downS: number; repairedS?: number; convergedS?: number; loadEndS: number };
  load: LoadSummary;
  config?: ChangeReport;
  /** The load's view of gateway readiness, seconds after the fault. */
  readiness: { atS: number; gateway: number; ready: boolean; probe: string }[];
  /** The first error message per failed outcome. */
  failureMessages: Record<string, string>;
  /** Up to FAILED_SAMPLES failed requests, seconds after the fault. */
  failedSamples: { gateway: number; startS: number; endS: number; outcome: string }[];
  /** The drill's own observations (drills.ts `findings`). */
  findings?: DrillFindings;
  /** Something in the drill itself went wrong (a part did not come back); its figures are partial. */
  error?: string;
  passed: boolean;
}

async function sleepUntil(epoch: number): Promise<void> {
  const wait = epoch - epochMs();
  if (wait > 0) await sleep(wait);
}

/** Runs `drill` against `stack` (which must be whole) and reports what the load saw. */
export async function runDrill(
  stack: ChaosStack,
  drill: Drill,
  downSeconds: number,
  weights: CanaryWeights,
): Promise<DrillResult> {
  const startedAt = new Date().toISOString();
  const config: ChaosLoadConfig = {
    gateways: [...stack.gatewayUrls],
    path: `/serve/${DEPLOYMENT.endpoint}`,
    concurrency: CONCURRENCY,
    texts: [...SENTENCES],
    readinessIntervalMs: READINESS_INTERVAL_MS,
    probeTimeoutMs: PROBE_TIMEOUT_MS,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
  };
  const load = spawnChild(LOAD_CHILD, config);
  const downS = drill.duration === 'outage' ? downSeconds : REPLACEMENT_AFTER_S;
  const change = new ConfigChange(stack, weights.next(), drill.changeDuringFault);
  let steadyStartMs = epochMs();
  let faultAtMs = epochMs();
  let repairedAtMs: number | undefined;
  let convergedAtMs: number | undefined;
  let error: string | undefined;
  try {
    await load.marked('sending');
    await sleep(WARMUP_S * 1000);
    steadyStartMs = epochMs();
    await sleep(STEADY_S * 1000);
    faultAtMs = epochMs();
    process.stdout.write(`  ${drill.name}: fault\n`);
    await drill.inject(stack);
    const changeAfterS = drill.duration === 'outage' ? Math.min(5, downS / 2) : 1;
    await sleepUntil(faultAtMs + changeAfterS * 1000);
    await change.attempt();
    await sleepUntil(faultAtMs + downS * 1000);
    await drill.repair(stack);
    repairedAtMs = epochMs();
    process.stdout.write(
      `  ${drill.name}: repaired after ${((repairedAtMs - faultAtMs) / 1000).toFixed(1)} s\n`,
    );
    if (!change.accepted) await change.retryUntilAccepted();
    if (await change.reachEveryNode()) convergedAtMs = epochMs();
    await sleep(RECOVERY_S * 1000);
  } catch (caught) {
    error = caught instanceof Error ? caught.message.slice(0, 2000) : String(caught);
  }
  const loadEndMs = epochMs();
  await load.stop(REQUEST_TIMEOUT_MS + 15_000);
  const records = (await load.result) as LoadRecords;
  try {
    await drill.cleanup?.();
  } catch (caught) {
    error ??= caught instanceof Error ? caught.message.slice(0, 2000) : String(caught);
  }
  const findings = drill.findings?.();
  const requests = decodeRequests(records);
  const summary = summarizeLoad(requests, { steadyStartMs, faultAtMs, loadEndMs });
  const sinceFault = (ms: number) => Math.round(ms - faultAtMs) / 1000;
  const outcome = await change.outcome().catch(() => undefined);
  const configResult = outcome && reportChange(outcome, sinceFault);
  return {
    drill: drill.name,
    fault: drill.fault,
    startedAt,
    timeline: {
      downS,
      ...(repairedAtMs !== undefined ? { repairedS: sinceFault(repairedAtMs) } : {}),
      ...(convergedAtMs !== undefined ? { convergedS: sinceFault(convergedAtMs) } : {}),
      loadEndS: sinceFault(loadEndMs),
    },
    load: summary,
    ...(configResult ? { config: configResult } : {}),
    readiness: decodeReadiness(records).map((change: ReadinessChange) => ({
      atS: sinceFault(change.atMs),
      gateway: change.gateway,
      ready: change.ready,
      probe: change.probe,
    })),
    failureMessages: records.messages,
    failedSamples: requests
      .filter((request) => request.outcome !== OK)
      .slice(0, FAILED_SAMPLES)
      .map((request) => ({
        gateway: request.gateway,
        startS: sinceFault(request.startMs),
        endS: sinceFault(request.endMs),
        outcome: request.outcome,
      })),
    ...(findings !== undefined ? { findings } : {}),
    ...(error !== undefined ? { error } : {}),
    passed: error === undefined && summary.failed === 0 && (outcome?.ok ?? false),
  };
}
