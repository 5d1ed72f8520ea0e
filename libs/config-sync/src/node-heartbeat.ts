import { z } from 'zod';
import { trafficReportSchema } from './traffic-report.js';

/**
 * A heartbeat's time-to-live, in ms: the registry keeps a report at most 10 minutes without a
 * renewal, and a node refuses a longer TTL at start rather than have every report refused.
 */
export const HEARTBEAT_TTL_LIMITS_MS = { min: 500, max: 600_000 } as const;

/** Whether a gateway can serve one endpoint now; `reason` says what is missing when not. */
export const endpointServabilitySchema = z.object({
  ready: z.boolean().describe('Whether the gateway can serve the endpoint now.'),
  reason: z.string().optional().describe('What is missing, when it cannot.'),
});

/** What every node reports about itself (DESIGN §3.4.3). */
export const nodeHeartbeatSchema = z.object({
  role: z.enum(['worker', 'gateway', 'registry']).describe("The node's kind."),
  id: z.string().min(1).describe('Stable for the life of the process (hostname:pid by default).'),
  address: z
    .string()
    .describe("Where the node is reached: a worker's gRPC address, a gateway's HTTP address."),
  workerGroup: z.string().optional().describe("A worker's group (the models it loads)."),
  revision: z
    .number()
    .int()
    .nullable()
    .describe('The config revision the node has applied; null before the first.'),
  models: z
    .record(z.string(), z.string())
    .default({})
    .describe('Model id → state (LOADING | READY | FAILED | DRAINING) on a worker.'),
  reasons: z
    .record(z.string(), z.string())
    .default({})
    .describe('Model id → why it is FAILED (and whether a retry comes), for the models that are.'),
  endpoints: z
    .record(z.string(), endpointServabilitySchema)
    .optional()
    .describe(
      'On a gateway: endpoint name → whether it can serve the endpoint now and, when not, why (reported, never a readiness gate). Absent from nodes older than this field.',
    ),
  traffic: trafficReportSchema
    .optional()
    .catch(undefined)
    .describe(
      'On a gateway: its per-model traffic counters, which rollouts judge candidates by. A malformed report is dropped, never the heartbeat (discovery must not lose a node over it).',
    ),
  at: z.number().describe('When it was written (ms since epoch).'),
});

export type NodeHeartbeat = z.infer<typeof nodeHeartbeatSchema>;

/** What a node says of itself in each heartbeat (`at` is added on writing; `reasons` may be left out). */
export type NodeReport = Omit<NodeHeartbeat, 'at' | 'reasons'> & { reasons?: Record<string, string> };

/** The heartbeat in `json`, or undefined when it is not one. */
export function parseHeartbeat(json: string | null): NodeHeartbeat | undefined {
  if (json === null) return undefined;
  try {
    const parsed = nodeHeartbeatSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Model id → addresses of workers whose heartbeat says the model is READY. */
export function readyWorkersByModel(heartbeats: readonly NodeHeartbeat[]): Map<string, string[]> {
  const byModel = new Map<string, string[]>();
  for (const node of heartbeats) {
    if (node.role !== 'worker') continue;
    for (const [model, state] of Object.entries(node.models)) {
      if (state !== 'READY') continue;
      const addresses = byModel.get(model) ?? [];
      addresses.push(node.address);
      byModel.set(model, addresses);
    }
  }
  for (const addresses of byModel.values()) addresses.sort();
  return byModel;
}

/** A host others can dial: a bind-all address (0.0.0.0, ::) is replaced by `machineName`. */
export function dialableHost(bindHost: string, machineName: string): string {
  return bindHost === '0.0.0.0' || bindHost === '::' ? machineName : bindHost;
}

/**
 * `host:port` as gRPC and HTTP clients dial it. An IPv6 literal is bracketed (`[fd00::5]:8001`):
 * bare, its last group would read as the port. An address that already names its port (`10.0.0.7:8001`,
 * `[fd00::5]:8001`) is kept as it is.
 */
export function withPort(address: string, port: number): string {
  if (/^\[[^\]]*\]:\d+$/.test(address)) return address;
  if (/^\[[^\]]*\]$/.test(address)) return `${address}:${port}`;
  const colons = address.split(':').length - 1;
  if (colons === 1 && /:\d+$/.test(address)) return address;
  return colons >= 2 ? `[${address}]:${port}` : `${address}:${port}`;
}

/** The id a node heartbeats under: stable for the life of the process. */
export function nodeId(machineName: string, pid: number): string {
  return `${machineName}:${pid}`;
}
