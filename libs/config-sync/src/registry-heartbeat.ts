/**
 * Heartbeats over HTTP to the registry (`POST /v1/nodes/heartbeat`): how nodes report where there
 * is no Redis (standalone mode), and the fallback while Redis is down, so `modelgate status` still
 * sees them. Redis stays the path for discovery; the registry only shows these reports.
 */
import { z } from 'zod';
import { HEARTBEAT_TTL_LIMITS_MS, nodeHeartbeatSchema, type NodeReport } from './node-heartbeat.js';

/** Where a node reports over HTTP. */
export interface RegistryReportTarget {
  /** Base URL of the registry, e.g. `http://registry:8081`. */
  url: string;
  /** Bearer token (the node's viewer token). */
  token?: string;
  /** Deadline of one call, in ms. @defaultValue 2000 */
  timeoutMs?: number;
}

/** The body of `POST /v1/nodes/heartbeat`: the node's report and how long it holds without renewal. */
export const heartbeatReportSchema = z.object({
  report: nodeHeartbeatSchema
    .omit({ at: true })
    .describe("The node's state: role, id, address, applied revision, models, endpoints, traffic"),
  ttlMs: z
    .int()
    .min(HEARTBEAT_TTL_LIMITS_MS.min)
    .max(HEARTBEAT_TTL_LIMITS_MS.max)
    .describe(
      'Milliseconds the registry keeps the report without a renewal (a dead node drops out after it)',
    ),
});

/** The body of `POST /v1/nodes/heartbeat`. */
export type HeartbeatReport = z.infer<typeof heartbeatReportSchema>;

/** Sends one heartbeat to the registry; throws when it does not answer 2xx. */
export async function postHeartbeat(
  target: RegistryReportTarget,
  report: NodeReport,
  ttlMs: number,
): Promise<void> {
  await call(target, 'POST', '/v1/nodes/heartbeat', JSON.stringify({ report, ttlMs }));
}

/** Withdraws a node's report (it stops), so it leaves the registry's status at once. */
export async function withdrawHeartbeat(
  target: RegistryReportTarget,
  role: string,
  id: string,
): Promise<void> {
  await call(target, 'DELETE', `/v1/nodes/${encodeURIComponent(role)}/${encodeURIComponent(id)}`);
}

async function call(
  target: RegistryReportTarget,
  method: string,
  path: string,
  body?: string,
): Promise<void> {
  const headers: Record<string, string> = {};
  if (target.token !== undefined) headers.authorization = `Bearer ${target.token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${target.url.replace(/\/+$/, '')}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
    signal: AbortSignal.timeout(target.timeoutMs ?? 2000),
  });
  await response.arrayBuffer().catch(() => undefined);
  if (!response.ok) throw new Error(`registry answered ${method} ${path} with HTTP ${response.status}`);
}

/** The registry at `url` as a report target, with the node's token when it has one. */
export function registryTarget(url: string, token: string | undefined): RegistryReportTarget {
  return token === undefined ? { url } : { url, token };
}
