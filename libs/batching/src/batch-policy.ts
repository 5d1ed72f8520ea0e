/**
 * The batching decision, as a pure function of (queue, limits, instance state, now).
 *
 * The rule, applied in this order by {@link decideNextBatch} (the queue is in arrival order, so
 * `queue[0]` is the OLDEST request; "free" is an instance with no batch running):
 *
 *  1. Queue empty, or no free instance → `idle` (re-decide when either changes).
 *  2. Candidates are the queued requests with the oldest's `batchKey`. The group G is chosen by
 *     {@link selectBatchGroup}, grouping by length: the oldest request plus the candidates nearest
 *     to its length, up to maxBatchSize, while the padded size (count × longest) fits
 *     `maxBatchTokens` and stays within `maxPaddingRatio` × the group's real tokens. So a short
 *     request is not padded to a long one's length while requests of its own length wait; the
 *     oldest is always in G, alone when nothing fits with it, so nothing starves.
 *  3. |G| = maxBatchSize → dispatch G (`full`).
 *  4. Some preferred size p ≤ |G| → dispatch the group rule 2 picks with the largest such p as its
 *     size cap: exactly p requests, the oldest among them (`preferred-size`).
 *  5. No preferred sizes → dispatch G (`no-preferred-sizes`): never wait.
 *  6. No batch running at all → dispatch G (`batcher-idle`): at low load a request never waits for
 *     company, and a lone instance is never left idle while requests queue.
 *  7. Draining (no more arrivals) → dispatch G (`draining`).
 *  8. No preferred p > |G| that more arrivals could reach (p × oldest's tokens ≤ maxBatchTokens)
 *     → dispatch G (`preferred-unreachable`).
 *  9. now ≥ oldest.enqueuedAtMicros + maxQueueDelayMicros → dispatch G (`max-delay-elapsed`).
 * 10. A member of G would pass its deadline by then → dispatch G now (`deadline-near`), rather than
 *     wait and have it expire.
 * 11. Otherwise → `wait` until oldest.enqueuedAtMicros + maxQueueDelayMicros (Triton semantics:
 *     the delay runs from the oldest request's arrival, not from the last decision).
 *
 * So waiting happens only while at least one other batch is running and a preferred size is still
 * reachable: with `instances: 1` the delay never applies (the batch accumulated while the instance
 * was busy goes as soon as it frees). `maxBatchTokens` bounds a batch's padded size and
 * `maxPaddingRatio` its padding: lengths (real ones: the worker counts each row's attention mask)
 * that are close batch together, distant ones wait for their own batch. Expired or cancelled
 * requests are the caller's to remove before deciding.
 */
import { type BatchLimits } from './batch-limits.js';

/** What the policy needs to know of one queued request. */
export interface QueuedRequest {
  /** The request's sequence length in tokens (1 for non-sequence models). */
  readonly tokens: number;
  /** When it joined the queue, on the batcher's clock, in µs. */
  readonly enqueuedAtMicros: number;
  /** When its caller stops waiting, on the batcher's clock, in µs. */
  readonly deadlineMicros: number;
  /** Only requests with equal keys share a batch (undefined equals undefined). */
  readonly batchKey?: string;
}

/** The model instances as the policy sees them. */
export interface InstanceState {
  /** Instances with no batch running. */
  readonly freeInstances: number;
  /** Batches running now. */
  readonly busyInstances: number;
  /** True when no more requests will arrive (the batcher drains), so waiting is pointless. */
  readonly draining?: boolean;
}

/** Why a batch left the queue when it did (rule numbers in this file's top comment). */
export type DispatchReason =
  | 'full'
  | 'preferred-size'
  | 'no-preferred-sizes'
  | 'batcher-idle'
  | 'draining'
  | 'preferred-unreachable'
  | 'max-delay-elapsed'
  | 'deadline-near';

/** What to do now: run a batch, look again at `untilMicros` (or on any event), or nothing. */
export type BatchDecision<T> =
  | { readonly kind: 'dispatch'; readonly items: readonly T[]; readonly reason: DispatchReason }
  | { readonly kind: 'wait'; readonly untilMicros: number }
  | { readonly kind: 'idle' };

const IDLE = { kind: 'idle' } as const;

/**
 * Decides the next batch for one free instance (see the rule in this file's top comment).
 * `queue` is in arrival order and holds only live requests; dispatched items come back in
 * arrival order.
 */
export function decideNextBatch<T extends QueuedRequest>(
  queue: readonly T[],
  limits: BatchLimits,
  state: InstanceState,
  nowMicros: number,
): BatchDecision<T> {
  const oldest = queue[0];
  if (oldest === undefined || state.freeInstances <= 0) return IDLE;
  const candidates = queue.filter((request) => request.batchKey === oldest.batchKey);
  const group = selectBatchGroup(
    candidates,
    limits.maxBatchSize,
    limits.maxBatchTokens,
    limits.maxPaddingRatio,
  );
  const dispatch = (items: readonly T[], reason: DispatchReason): BatchDecision<T> => ({
    kind: 'dispatch',
    items,
    reason,
  });

  if (group.length >= limits.maxBatchSize) return dispatch(group, 'full');
  const preferred = limits.preferredBatchSizes.filter((size) => size <= limits.maxBatchSize);
  const formable = preferred.filter((size) => size <= group.length);
  const largestFormable = formable[formable.length - 1];
  if (largestFormable !== undefined) {
    const items = selectBatchGroup(
      candidates,
      largestFormable,
      limits.maxBatchTokens,
      limits.maxPaddingRatio,
    );
    return dispatch(items, 'preferred-size');
  }
  if (preferred.length === 0) return dispatch(group, 'no-preferred-sizes');
  if (state.busyInstances <= 0) return dispatch(group, 'batcher-idle');
  if (state.draining === true) return dispatch(group, 'draining');
  const reachable = preferred.some(
    (size) => size > group.length && size * oldest.tokens <= limits.maxBatchTokens,
  );
  if (!reachable) return dispatch(group, 'preferred-unreachable');
  const waitUntil = oldest.enqueuedAtMicros + limits.maxQueueDelayMicros;
  if (nowMicros >= waitUntil) return dispatch(group, 'max-delay-elapsed');
  if (group.some((request) => request.deadlineMicros <= waitUntil)) return dispatch(group, 'deadline-near');
  return { kind: 'wait', untilMicros: waitUntil };
}

/**
 * The length grouping (rule 2). The group starts as the oldest request and takes the other
 * candidates nearest to its length first (equal distances: the older first), each only while the
 * group stays within `maxItems`, its padded size (count × longest) within `maxBatchTokens`, and
 * that padded size within `maxPaddingRatio` × its real tokens (the sum of the lengths). A
 * candidate that would break a bound is passed over and a nearer-fitting later one may still
 * join. So a short request is never padded to a long one's length while requests of its own
 * length wait, the oldest is always in the group (alone when nothing fits with it: nothing
 * starves), and with `maxPaddingRatio` = ∞ this is the token budget alone. Returned in arrival
 * order; empty only when `candidates` is.
 */
export function selectBatchGroup<T extends QueuedRequest>(
  candidates: readonly T[],
  maxItems: number,
  maxBatchTokens: number,
  maxPaddingRatio = Number.POSITIVE_INFINITY,
): T[] {
  const oldest = candidates[0];
  if (oldest === undefined) return [];
  const cap = Math.max(1, Math.floor(maxItems));
  if (cap === 1 || candidates.length === 1) return [oldest];
  const byDistance = candidates
    .map((request, arrival) => ({ request, arrival, distance: Math.abs(request.tokens - oldest.tokens) }))
    .slice(1)
    .sort((a, b) => a.distance - b.distance || a.arrival - b.arrival);
  const chosen = new Set<number>([0]);
  let longest = oldest.tokens;
  let real = oldest.tokens;
  for (const { request, arrival } of byDistance) {
    if (chosen.size >= cap) break;
    const count = chosen.size + 1;
    const padded = count * Math.max(longest, request.tokens);
    if (padded > maxBatchTokens || padded > maxPaddingRatio * (real + request.tokens)) continue;
    chosen.add(arrival);
    longest = Math.max(longest, request.tokens);
    real += request.tokens;
  }
  return candidates.filter((_, arrival) => chosen.has(arrival));
}
