/**
 * The fault drills of issues 12 and 45: what each one breaks, how it is repaired, and what the
 * registry should answer to a config change made meanwhile. Process faults hit the second worker
 * or gateway and last until a replacement starts (as a Deployment controller would start one);
 * a hung worker (SIGSTOP), outages of Redis, Postgres and the registry, and a full artifact cache
 * (disk-full.ts) last `--down-seconds`.
 */
import { type ChaosStack } from './chaos-stack.js';
import { type ExpectedAnswer } from './config-change.js';
import { DiskFullDrill, renderDiskFullFindings } from './disk-full.js';

/** Drill names, in the order a full run takes them. */
export const DRILL_NAMES = [
  'worker-kill',
  'worker-sigterm',
  'worker-hang',
  'gateway-sigterm',
  'redis-down',
  'postgres-down',
  'registry-down',
  'disk-full',
] as const;

/** One of DRILL_NAMES. */
export type DrillName = (typeof DRILL_NAMES)[number];

/** How long a fault lasts: a replaced process's fixed delay, or the run's --down-seconds. */
export type FaultDuration = 'replacement' | 'outage';

/** Seconds a killed or terminated process stays gone before its replacement starts. */
export const REPLACEMENT_AFTER_S = 10;

/** One drill. */
export interface Drill {
  name: DrillName;
  /** The fault, as the report says it. */
  fault: string;
  duration: FaultDuration;
  /** What the registry should answer to the config change made during the fault. */
  changeDuringFault: ExpectedAnswer;
  inject(stack: ChaosStack): Promise<void>;
  /** Brings the broken part back and resolves once it serves again. */
  repair(stack: ChaosStack): Promise<void>;
  /** Undoes what the drill set up (after the load stopped, whether it passed or not). */
  cleanup?(): Promise<void>;
  /** What the drill saw beyond the load's figures: JSON facts, and lines for the report. */
  findings?(): DrillFindings;
}

/** A drill's own observations. */
export interface DrillFindings {
  facts: unknown;
  /** Markdown lines for the drill's details. */
  lines: string[];
}

const diskFull = new DiskFullDrill();

/** The part a process fault hits: the second of two. */
const VICTIM = 1;

export const DRILLS: Readonly<Record<DrillName, Drill>> = {
  'worker-kill': {
    name: 'worker-kill',
    fault: `kill -9 of worker ${VICTIM}; a new worker starts ${REPLACEMENT_AFTER_S} s later`,
    duration: 'replacement',
    changeDuringFault: 'accepted',
    inject: (stack) => Promise.resolve(stack.signalWorker(VICTIM, 'SIGKILL')),
    repair: (stack) => stack.startWorker(VICTIM),
  },
  'worker-sigterm': {
    name: 'worker-sigterm',
    fault: `SIGTERM of worker ${VICTIM} (drain, then exit); a new worker starts ${REPLACEMENT_AFTER_S} s later`,
    duration: 'replacement',
    changeDuringFault: 'accepted',
    inject: (stack) => Promise.resolve(stack.signalWorker(VICTIM, 'SIGTERM')),
    repair: (stack) => stack.startWorker(VICTIM),
  },
  'worker-hang': {
    name: 'worker-hang',
    fault: `SIGSTOP of worker ${VICTIM} (it keeps its connections and answers nothing); SIGCONT after --down-seconds`,
    duration: 'outage',
    changeDuringFault: 'accepted',
    inject: (stack) => Promise.resolve(stack.pauseWorker(VICTIM)),
    repair: (stack) => stack.resumeWorker(VICTIM),
  },
  'gateway-sigterm': {
    name: 'gateway-sigterm',
    fault: `SIGTERM of gateway ${VICTIM}; it starts again on its port ${REPLACEMENT_AFTER_S} s later`,
    duration: 'replacement',
    changeDuringFault: 'accepted',
    inject: (stack) => Promise.resolve(stack.signalGateway(VICTIM, 'SIGTERM')),
    repair: (stack) => stack.startGateway(VICTIM),
  },
  'redis-down': {
    name: 'redis-down',
    fault: 'Redis killed (SIGKILL), started again empty on its port after --down-seconds',
    duration: 'outage',
    // The registry commits to Postgres; the nodes' reconcile poll brings the change without Redis.
    changeDuringFault: 'accepted',
    inject: (stack) => stack.redis.kill(),
    repair: (stack) => stack.redis.start(),
  },
  'postgres-down': {
    name: 'postgres-down',
    fault:
      'Postgres stopped as by `pg_ctl stop -m immediate`, started again on its data directory after --down-seconds',
    duration: 'outage',
    changeDuringFault: 'refused with 503',
    inject: (stack) => stack.postgres.stopImmediately(),
    repair: (stack) => stack.postgres.start(),
  },
  'registry-down': {
    name: 'registry-down',
    fault: 'registry killed (SIGKILL), started again on its port after --down-seconds',
    duration: 'outage',
    changeDuringFault: 'no answer',
    inject: (stack) => stack.registry.kill(),
    repair: (stack) => stack.registry.start(),
  },
  'disk-full': {
    name: 'disk-full',
    fault:
      "the registry's artifact cache moved onto a tmpfs a few MiB short of a second model's .onnx, that model " +
      'registered (its preparation writes there); the tmpfs grown after --down-seconds',
    duration: 'outage',
    changeDuringFault: 'accepted',
    inject: (stack) => diskFull.inject(stack),
    repair: (stack) => diskFull.repair(stack),
    cleanup: () => diskFull.cleanup(),
    findings: () => ({ facts: diskFull.findings, lines: renderDiskFullFindings(diskFull.findings) }),
  },
};
