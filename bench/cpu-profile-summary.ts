/**
 * Reads V8 `.cpuprofile` files (written by `node --cpu-prof`) and says where the CPU went: self
 * time per function and per package, idle excluded. Used by the bench's `--profile` mode to put a
 * "where the CPU goes" table per process in the report.
 */
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** One row of a summary: a function (or package) and its share of the busy samples. */
export interface ProfileRow {
  name: string;
  /** Self time, in ms. */
  selfMs: number;
  /** Share of the profile's non-idle self time, 0..1. */
  share: number;
}

/** Where one thread's CPU went. */
export interface ProfileSummary {
  /** Non-idle sampled time, in ms. */
  busyMs: number;
  /** Wall time the profile covers, in ms. */
  wallMs: number;
  functions: ProfileRow[];
  packages: ProfileRow[];
}

const IDLE = new Set(['(idle)', '(root)']);

/** A span of CLOCK_MONOTONIC time, in µs (`process.hrtime.bigint() / 1000n`, V8's sample clock). */
export interface ProfileWindow {
  fromMicros: number;
  toMicros: number;
}

/**
 * Summarises one `.cpuprofile` file: the `top` functions and packages by self time, counting only
 * samples inside `window` when one is given (so start-up and warm-up stay out).
 */
export async function summarizeCpuProfile(
  path: string,
  top = 12,
  window?: ProfileWindow,
): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // A sample's time is the delta to the next sample (V8's own attribution).
  let at = profile.startTime;
  for (let i = 0; i < samples.length; i++) {
    at += deltas[i] ?? 0;
    if (window && (at < window.fromMicros || at > window.toMicros)) continue;
    const id = samples[i] as number;
    const next = deltas[i + 1] ?? 0;
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + Math.max(next, 0));
  }
  const fn = new Map<string, number>();
  const pkg = new Map<string, number>();
  let busy = 0;
  for (const [id, micros] of selfMicros) {
    const node = byId.get(id);
    if (!node || IDLE.has(node.callFrame.functionName)) continue;
    busy += micros;
    const key = functionKey(node);
    fn.set(key, (fn.get(key) ?? 0) + micros);
    const owner = packageOf(node);
    pkg.set(owner, (pkg.get(owner) ?? 0) + micros);
  }
  const rows = (map: Map<string, number>): ProfileRow[] =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, micros]) => ({ name, selfMs: micros / 1000, share: busy > 0 ? micros / busy : 0 }));
  return {
    busyMs: busy / 1000,
    wallMs: window
      ? (Math.min(window.toMicros, profile.endTime) - Math.max(window.fromMicros, profile.startTime)) / 1000
      : (profile.endTime - profile.startTime) / 1000,
    functions: rows(fn),
    packages: rows(pkg),
  };
}

function functionKey(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const name = functionName || '(anonymous)';
  if (!url) return name;
  return `${name} ${shortUrl(url)}:${lineNumber + 1}`;
}

/** The npm package, node internals, or the repo folder a frame belongs to. */
function packageOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? url);
  }
  const match = /\/(apps|libs)\/([^/]+)\//.exec(url);
  return match ? `${match[1]}/${match[2]}` : shortUrl(url);
}

function shortUrl(url: string): string {
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) return url.slice(modules + 'node_modules/'.length);
  const repo = /\/(apps|libs|bench)\/.*$/.exec(url);
  return repo ? repo[0].slice(1) : url.replace(/^file:\/\//, '');
}
