/**
 * The IPC between a gateway pod's cluster primary and its event loops. The primary follows the
 * config, heartbeats and aggregates metrics once for the pod; each loop serves HTTP.
 *
 *   loop → primary: `hello` once at start; `report` (its part of the heartbeat) on an interval
 *                   and after each applied snapshot; `metrics-request` when /metrics is scraped;
 *                   `metrics-json` answering a `metrics-collect`.
 *   primary → loop: `welcome` (its duties and the snapshot in force, if any); `snapshot` for each
 *                   new one; `metrics-collect`; `metrics-text` answering a `metrics-request`.
 *
 * Messages are plain JSON (Node's default cluster serialization). Snapshots are validated again
 * where they arrive; the rest comes from the same binary and is only told apart by `type`.
 */
import { type NodeReport } from '@modelgate/config-sync';
import { type MetricsJson } from '@modelgate/observability';

/** What one event loop does besides serving HTTP. */
export interface LoopDuties {
  /** Runs the pod's BullMQ consumer of async-inference jobs (exactly one live loop does). */
  readonly asyncConsumer: boolean;
}

export type LoopToPrimary =
  | { readonly type: 'modelgate:hello' }
  | { readonly type: 'modelgate:report'; readonly report: NodeReport }
  | { readonly type: 'modelgate:metrics-request'; readonly requestId: number }
  | { readonly type: 'modelgate:metrics-json'; readonly collectionId: number; readonly metrics: MetricsJson };

export type PrimaryToLoop =
  | { readonly type: 'modelgate:welcome'; readonly duties: LoopDuties; readonly snapshot?: unknown }
  | { readonly type: 'modelgate:snapshot'; readonly snapshot: unknown }
  | { readonly type: 'modelgate:metrics-collect'; readonly collectionId: number }
  | {
      readonly type: 'modelgate:metrics-text';
      readonly requestId: number;
      readonly text?: string;
      readonly error?: string;
    };

const LOOP_TYPES: ReadonlySet<string> = new Set<LoopToPrimary['type']>([
  'modelgate:hello',
  'modelgate:report',
  'modelgate:metrics-request',
  'modelgate:metrics-json',
]);

const PRIMARY_TYPES: ReadonlySet<string> = new Set<PrimaryToLoop['type']>([
  'modelgate:welcome',
  'modelgate:snapshot',
  'modelgate:metrics-collect',
  'modelgate:metrics-text',
]);

function typeOf(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const type = (message as { type?: unknown }).type;
  return typeof type === 'string' ? type : undefined;
}

/** Whether `message` is one of ours from a loop (Node's own cluster messages are not). */
export function isLoopMessage(message: unknown): message is LoopToPrimary {
  return LOOP_TYPES.has(typeOf(message) ?? '');
}

/** Whether `message` is one of ours from the primary. */
export function isPrimaryMessage(message: unknown): message is PrimaryToLoop {
  return PRIMARY_TYPES.has(typeOf(message) ?? '');
}
