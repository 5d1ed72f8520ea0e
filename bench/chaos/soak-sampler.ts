/**
 * Readings of the fleet's processes during the soak: resident memory and open file descriptors
 * from /proc (what the kernel charges the process, whatever the runtime thinks), V8's used heap
 * and its external memory from the process's own /metrics (prom-client's default metrics).
 */
import { readFile, readdir } from 'node:fs/promises';
import { metricValue } from '@modelgate/testing';
import { type FleetProcess } from './chaos-stack.js';
import { epochMs } from './load-records.js';
import { type ProcessSample } from './soak-analysis.js';

/** How long a process's /metrics may take before the sample goes without its heap figures. */
const METRICS_TIMEOUT_MS = 2000;

async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kib === undefined) throw new Error(`/proc/${pid}/status has no VmRSS`);
  return Number(kib) * 1024;
}

async function heapFigures(url: string): Promise<Pick<ProcessSample, 'heapUsedBytes' | 'externalBytes'>> {
  try {
    const response = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(METRICS_TIMEOUT_MS) });
    if (response.status !== 200) return {};
    const text = await response.text();
    if (!text.includes('nodejs_heap_size_used_bytes')) return {};
    return {
      heapUsedBytes: metricValue(text, 'nodejs_heap_size_used_bytes'),
      externalBytes: metricValue(text, 'nodejs_external_memory_bytes'),
    };
  } catch {
    return {};
  }
}

/** One reading of `process`; rejects when it is gone (no /proc entry). */
export async function sampleProcess(process: FleetProcess): Promise<ProcessSample> {
  const atMs = epochMs();
  const [rss, fds, heap] = await Promise.all([
    rssBytes(process.pid),
    readdir(`/proc/${process.pid}/fd`).then((entries) => entries.length),
    heapFigures(process.url),
  ]);
  return { atMs, rssBytes: rss, fds, ...heap };
}
