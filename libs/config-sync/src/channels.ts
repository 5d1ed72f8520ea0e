import { z } from 'zod';

/** The Redis channel config revisions are announced on: `<prefix>:config` (DESIGN §3.4). */
export function configChannel(keyPrefix: string): string {
  return `${keyPrefix}:config`;
}

/** The announcement of `revision`, as published on the config channel. */
export function configMessage(revision: number): string {
  return JSON.stringify({ revision });
}

const configMessageSchema = z.object({ revision: z.number().int().nonnegative() });

/** The revision a config-channel message announces, or undefined for anything malformed. */
export function parseConfigMessage(message: string): number | undefined {
  try {
    const parsed = configMessageSchema.safeParse(JSON.parse(message));
    return parsed.success ? parsed.data.revision : undefined;
  } catch {
    return undefined;
  }
}

/** The Redis key of one node's heartbeat: `<prefix>:node:<role>:<id>`. */
export function heartbeatKey(keyPrefix: string, role: string, id: string): string {
  return `${keyPrefix}:node:${role}:${id}`;
}

/** The pattern matching every heartbeat key. */
export function heartbeatPattern(keyPrefix: string): string {
  return `${keyPrefix}:node:*`;
}

/**
 * The sorted set indexing heartbeat keys (score: when the writer expects the key to expire, in ms
 * since epoch), so readers find nodes without scanning the key space (BullMQ keys included).
 */
export function heartbeatIndexKey(keyPrefix: string): string {
  return `${keyPrefix}:nodes`;
}
