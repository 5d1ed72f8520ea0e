/**
 * Where the CPU goes (issue 11, `--profile`): a stack of its own whose gateway and worker run under
 * `node --cpu-prof` (MODELGATE_NODE_ARGS; V8 writes one .cpuprofile per process and per thread,
 * the worker's onnxruntime session thread included, on a normal exit — hence SIGINT, not SIGKILL),
 * driven at c=1 and c=128. Each profile is summarised over exactly each step's measured window.
 * Profiling slows what it watches: these steps are reported here only, never in the comparisons.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type BenchOptions } from './bench-options.js';
import { type ProfileResult, type ProfiledThread } from './bench-results.js';
import { type ControlPlane, type Deployment } from './control-plane.js';
import { summarizeCpuProfile } from './cpu-profile-summary.js';
import { type StepResult } from './load-step.js';
import { startModelgate } from './modelgate-stack.js';
import { measureModelgateStep } from './suites.js';

/** The concurrencies profiled: the latency path alone, and the path under full batching. */
const PROFILE_CONCURRENCIES = [1, 128];
/** Rows per function and package list. */
const TOP_ROWS = 6;
/** Threads busier than this share of the window get a row (idle helper threads do not). */
const MIN_BUSY_SHARE = 0.01;

/** A profile file: `CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile` (thread 0 = main thread). */
interface ProfileFile {
  path: string;
  pid: number;
  threadId: number;
}

async function profileFiles(dir: string): Promise<ProfileFile[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.flatMap((name) => {
    const match = /^CPU\.\d+\.\d+\.(\d+)\.(\d+)\.\d+\.cpuprofile$/.exec(name);
    return match ? [{ path: join(dir, name), pid: Number(match[1]), threadId: Number(match[2]) }] : [];
  });
}

function labelOf(
  party: 'gateway' | 'worker',
  file: ProfileFile,
  rootPid: number,
  topPackages: string[],
): string {
  const process =
    party === 'gateway' && file.pid !== rootPid ? `gateway event loop (pid ${file.pid})` : party;
  if (file.threadId === 0) return `${process} main thread`;
  const role = topPackages.includes('onnxruntime-node') ? ', onnxruntime session' : '';
  return `${process} thread ${file.threadId}${role}`;
}

async function summarizeStep(
  step: StepResult,
  files: Record<'gateway' | 'worker', { rootPid: number; files: ProfileFile[] }>,
): Promise<ProfiledThread[]> {
  const threads: ProfiledThread[] = [];
  for (const party of ['gateway', 'worker'] as const) {
    for (const file of files[party].files) {
      const summary = await summarizeCpuProfile(file.path, TOP_ROWS, step.window);
      if (summary.wallMs <= 0 || summary.busyMs / summary.wallMs < MIN_BUSY_SHARE) continue;
      const label = labelOf(
        party,
        file,
        files[party].rootPid,
        summary.packages.map((row) => row.name),
      );
      threads.push({ party, label, summary, cpuMsPerRequest: summary.busyMs / Math.max(1, step.load.ok) });
    }
  }
  return threads;
}

export async function runProfileSuite(
  options: BenchOptions,
  plane: ControlPlane,
  deployment: Deployment,
  profileDir: string,
): Promise<ProfileResult> {
  const dirs = { gateway: join(profileDir, 'gateway'), worker: join(profileDir, 'worker') };
  process.stdout.write(`profile: gateway and worker under --cpu-prof, profiles in ${profileDir}\n`);
  const stack = await startModelgate(plane, deployment, {
    gatewayWorkers: options.gatewayWorkers,
    worker: { nodeArgs: `--cpu-prof --cpu-prof-dir=${dirs.worker}` },
    gateway: { nodeArgs: `--cpu-prof --cpu-prof-dir=${dirs.gateway}` },
  });
  const roots = { gateway: stack.gateway.process.child.pid ?? -1, worker: stack.worker.pid };
  const steps: StepResult[] = [];
  try {
    // Profiled is a server in service: its per-call path optimised, as the shared suite measures it
    // (BenchOptions.jitWarmupRequests); the summaries count each step's window only.
    if (options.jitWarmupRequests > 0) {
      await measureModelgateStep(options, stack, 1, {
        system: 'modelgate (profiled, JIT warm-up)',
        amount: options.jitWarmupRequests,
      });
    }
    for (const c of PROFILE_CONCURRENCIES) {
      steps.push(await measureModelgateStep(options, stack, c, { system: 'modelgate (profiled)' }));
    }
  } finally {
    // SIGINT: a normal exit, so V8 writes the profiles.
    await stack.stop('SIGINT');
  }
  const files = {
    gateway: { rootPid: roots.gateway, files: await profileFiles(dirs.gateway) },
    worker: { rootPid: roots.worker, files: await profileFiles(dirs.worker) },
  };
  if (files.gateway.files.length === 0 || files.worker.files.length === 0) {
    throw new Error(`--profile: no .cpuprofile written under ${profileDir}`);
  }
  const result: ProfileResult = { gatewayWorkers: stack.gatewayWorkers, profileDir, steps: [] };
  for (const step of steps) result.steps.push({ step, threads: await summarizeStep(step, files) });
  return result;
}
