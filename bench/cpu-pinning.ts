/**
 * Core pinning for the pinned split mode, with util-linux `taskset`: children the bench spawns
 * start pinned (`taskset -c <cpus> node …`, so every thread inherits it); processes the test
 * harness starts are pinned once up (`taskset -a -c -p`: every existing thread; threads created
 * later inherit their creator's mask), and the masks are read back from /proc to prove it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { processTree } from './process-cpu.js';

/** Whether this machine can run the pinned split mode, or why not. */
export type PinningSupport = { ok: true } | { ok: false; reason: string };

/** `0-2,5` → [0, 1, 2, 5]. */
export function parseCpuList(list: string): number[] {
  return list
    .trim()
    .split(',')
    .filter((part) => part.length > 0)
    .flatMap((part) => {
      const [from = NaN, to = from] = part.split('-').map(Number);
      return Array.from({ length: to - from + 1 }, (_, i) => from + i);
    });
}

/** The CPUs a thread may run on (its Cpus_allowed_list), or undefined when it is gone. */
function allowedCpus(statusPath: string): string | undefined {
  try {
    return /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync(statusPath, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

/** Says whether `taskset` exists and cores 0 and 1 are both ours to pin to. */
export function checkPinningSupport(): PinningSupport {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
  } catch {
    return { ok: false, reason: '`taskset` (util-linux) is not installed' };
  }
  const own = parseCpuList(allowedCpus('/proc/self/status') ?? '');
  if (!own.includes(0) || !own.includes(1)) {
    return {
      ok: false,
      reason: `needs cores 0 and 1; this process may run on ${own.join(',') || 'unknown'}`,
    };
  }
  return { ok: true };
}

/** The argv that starts `command args` pinned to `cpuList` from its first instruction. */
export function pinnedArgv(cpuList: string, command: string, args: string[]): [string, string[]] {
  return ['taskset', ['-c', cpuList, command, ...args]];
}

/** Pins every thread of `pid` and of its descendants to `cpuList` (e.g. `0`). */
export function pinProcessTree(pid: number, cpuList: string): void {
  for (const member of processTree(pid)) {
    execFileSync('taskset', ['-a', '-c', '-p', cpuList, String(member)], { stdio: 'ignore' });
  }
}

/** The distinct CPU lists the threads of `pid`'s tree may run on, with how many threads each. */
export function treeAffinities(pid: number): Record<string, number> {
  const lists: Record<string, number> = {};
  for (const member of processTree(pid)) {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${member}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      const list = allowedCpus(`/proc/${member}/task/${task}/status`);
      if (list !== undefined) lists[list] = (lists[list] ?? 0) + 1;
    }
  }
  return lists;
}
