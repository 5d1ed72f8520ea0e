/**
 * "Where the CPU goes": per profiled step, one row per gateway process and per worker thread with
 * its busy share of the window, CPU per request and its top self-time packages and functions.
 */
import { type BenchResults } from './bench-results.js';
import { type ProfileRow } from './cpu-profile-summary.js';
import { fmt, table } from './report-format.js';

/** Rows shown per list (the .json keeps more). */
const SHOWN = 5;

const rowsCell = (rows: readonly ProfileRow[]): string =>
  rows
    .slice(0, SHOWN)
    .map((row) => `${fmt(row.share * 100, 0)}% ${row.name.replaceAll('|', '\\|')}`)
    .join('<br>');

export function profileSection(results: BenchResults): string {
  const profile = results.profile;
  if (!profile) return '';
  const lines = [
    '## Where the CPU goes (--profile: V8 CPU profiles of gateway and worker)',
    '',
    `A stack of its own under \`node --cpu-prof\` (GATEWAY_WORKERS=${profile.gatewayWorkers}); each profile counts only ` +
      "the samples inside the step's measured window. Self time: a native call (onnxruntime's run, a syscall) is " +
      "charged to the JS function that made it. Shares are of the thread's busy time; threads busy under 1% of the " +
      `window are left out. Profiling slows the path: throughput here is not comparable. Profiles: \`${profile.profileDir}\`.`,
  ];
  for (const { step, threads } of profile.steps) {
    lines.push(
      '',
      `### c=${step.load.concurrency}: ${fmt(step.load.throughput, 1)} infer/s, p50 ${fmt(step.load.latency.p50)} ms (profiled)`,
      '',
      table(
        [
          'process / thread',
          'busy (cores)',
          'CPU ms/request',
          'top packages (self time)',
          'top functions (self time)',
        ],
        threads.map((t) => [
          t.label,
          fmt(t.summary.busyMs / t.summary.wallMs),
          fmt(t.cpuMsPerRequest, 3),
          rowsCell(t.summary.packages),
          rowsCell(t.summary.functions),
        ]),
      ),
    );
  }
  return lines.join('\n');
}
