/**
 * CPU accounting from /proc (Linux): user+system time of a process and its live descendants
 * (a clustered gateway's workers), and the whole machine's busy time, so a step can say how much
 * CPU each party used and how much went to processes outside the benchmark.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

/** Clock ticks per second of /proc times (USER_HZ; 100 on practically every Linux). */
const CLOCK_TICKS_PER_SECOND = readClockTicks();

function readClockTicks(): number {
  try {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
}

/** utime+stime of one process in ms, or 0 when it is gone. */
function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the `(comm)`, which may itself contain spaces; utime and stime are fields 14, 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** `pid` and every live descendant. */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    const current = tree[i] ?? pid;
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${current}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        const children = readFileSync(`/proc/${current}/task/${task}/children`, 'utf8').trim();
        if (children) tree.push(...children.split(' ').map(Number));
      } catch {
        // the task ended meanwhile
      }
    }
  }
  return tree;
}

/** CPU ms used so far by `pid` and its live descendants. */
export function processTreeCpuMs(pid: number): number {
  return processTree(pid).reduce((sum, member) => sum + processCpuMs(member), 0);
}

/** Busy (not idle, iowait or steal) CPU ms of the whole machine since boot, all cores summed. */
export function machineBusyCpuMs(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const [, ...values] = line.trim().split(/\s+/);
  // user nice system idle iowait irq softirq (steal is the hypervisor's; guest time is inside user)
  const ticks = values.slice(0, 7).map(Number);
  const busy = ticks.reduce((sum, t, i) => (i === 3 || i === 4 ? sum : sum + t), 0);
  return (busy * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** CPU used by named parties over one step, plus what the rest of the machine used meanwhile. */
export interface CpuUsage {
  /** CPU ms per party over the step. */
  byParty: Record<string, number>;
  /** Busy CPU ms of the whole machine over the step. */
  machineMs: number;
  /** CPU ms of the bench's own orchestrating process (not a party, not "other"). */
  benchMs: number;
  /** Wall-clock ms of the step. */
  wallMs: number;
}

/** Starts measuring the CPU of `parties` (name → root pid); `stop()` returns the deltas. */
export function startCpuMeter(parties: Record<string, number>): { stop(): CpuUsage } {
  const before = Object.fromEntries(
    Object.entries(parties).map(([name, pid]) => [name, processTreeCpuMs(pid)]),
  );
  const machineBefore = machineBusyCpuMs();
  const benchBefore = process.cpuUsage();
  const started = performance.now();
  return {
    stop() {
      const byParty: Record<string, number> = {};
      for (const [name, pid] of Object.entries(parties))
        byParty[name] = processTreeCpuMs(pid) - (before[name] ?? 0);
      const bench = process.cpuUsage(benchBefore);
      return {
        byParty,
        machineMs: machineBusyCpuMs() - machineBefore,
        benchMs: (bench.user + bench.system) / 1000,
        wallMs: performance.now() - started,
      };
    },
  };
}

/** Cores' worth of CPU that processes outside the bench used during a step. */
export function otherCores(usage: CpuUsage): number {
  const ours = Object.values(usage.byParty).reduce((sum, ms) => sum + ms, 0) + usage.benchMs;
  return Math.max(0, usage.machineMs - ours) / usage.wallMs;
}

/**
 * Steps during which other processes used more than this many cores are measured again: on a
 * shared 2-core machine a neighbour's compile would otherwise decide the result.
 */
export const NOISY_OTHER_CORES = 0.25;

/** Waiting for quiet moments stops after this much in one process, so a busy machine cannot stall a run. */
let quietWaitBudgetMs = 120_000;

/**
 * Waits (up to `maxWaitMs`) for a 1 s window in which processes outside the bench (this process
 * and its descendants) use less than NOISY_OTHER_CORES; returns the last window's other cores.
 */
export async function waitForQuietMachine(maxWaitMs: number): Promise<number> {
  const started = performance.now();
  const deadline = started + Math.min(maxWaitMs, quietWaitBudgetMs);
  try {
    for (;;) {
      const meter = startCpuMeter({ bench: process.pid });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const other = otherCores(meter.stop());
      if (other < NOISY_OTHER_CORES || performance.now() > deadline) return other;
    }
  } finally {
    quietWaitBudgetMs = Math.max(0, quietWaitBudgetMs - (performance.now() - started));
  }
}
