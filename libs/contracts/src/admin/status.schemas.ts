import { z } from 'zod';
import { rolloutSummarySchema } from '../rollouts/rollout-view.js';

/** Node roles that heartbeat (DESIGN §3.4.3). */
export const NODE_ROLES = ['gateway', 'worker', 'registry'] as const;

/** One of NODE_ROLES. */
export type NodeRole = (typeof NODE_ROLES)[number];

/** One node as `GET /v1/status` shows it. */
export const nodeStatusViewSchema = z.object({
  role: z.enum(NODE_ROLES).describe('gateway, worker or registry'),
  id: z.string().describe("The node's id"),
  address: z.string().describe('Where it listens, host:port'),
  workerGroup: z.string().optional().describe("A worker's group"),
  revision: z.number().nullable().describe('The config revision the node has applied; null before its first'),
  lag: z
    .number()
    .nullable()
    .describe('Revisions the node is behind the latest (0 = up to date); null before its first'),
  models: z
    .record(z.string(), z.string())
    .describe('Model id → state on the node (LOADING, READY, FAILED or DRAINING)'),
  reasons: z
    .record(z.string(), z.string())
    .describe('Model id → why it FAILED on the node (only failed models)'),
  endpoints: z
    .record(
      z.string(),
      z.object({
        ready: z.boolean().describe('Whether the gateway can serve the endpoint now'),
        reason: z.string().optional().describe('What is missing, when it cannot'),
      }),
    )
    .optional()
    .describe('On a gateway: endpoint name → whether it can serve it now, and why not'),
  lastSeenMs: z.number().describe("Milliseconds since the node's last heartbeat"),
});

/** One node as `GET /v1/status` shows it. */
export type NodeStatusView = z.infer<typeof nodeStatusViewSchema>;

/** The latest revision and every node with a live heartbeat. */
export const fleetStatusSchema = z.object({
  revision: z.number().describe('The latest config revision'),
  nodes: z.array(nodeStatusViewSchema).describe('Every node with a live heartbeat'),
  note: z
    .string()
    .optional()
    .describe('Why the node list is empty or partial, when it is for a reason other than "no nodes"'),
});

/** The latest revision and every node with a live heartbeat. */
export type FleetStatus = z.infer<typeof fleetStatusSchema>;

/** `GET /v1/status`: the fleet and the rollouts in progress. */
export const fleetStatusViewSchema = fleetStatusSchema.extend({
  rollouts: z.array(rolloutSummarySchema).describe('The rollouts in progress'),
});

/** What `GET /v1/status` answers. */
export type FleetStatusView = z.infer<typeof fleetStatusViewSchema>;
