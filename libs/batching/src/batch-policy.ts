/**
 * The batching decision, as a pure function of (queue, limits, instance state, now).
 *
 * The rule, applied in this order by {@link decideNextBatch} (the queue is in arrival order, so
 * `queue[0]` is the OLDEST request; "free" is an instance with no batch running):
 *
 *  1. Queue empty, or no free instance → `idle` (re-decide when either changes).
 *  2. Candidates are the queued requests with the oldest's `batchKey`. The group G is chosen by
 *     {@link selectBatchGroup}, grouping by length: the most requests (≤ maxBatchSize) whose padded
 *     size, count × longest, fits `maxBatchTokens`, padded to the shortest length that lets that
 *     many fit, and made of the oldest request plus the oldest others no longer than that length.
 *     So a short request is never padded to a long one's length when another grouping of as many
 *     requests avoids it; the oldest is always in G, alone when it alone is over the budget, so
 *     nothing starves.
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
 * was busy goes as soon as it frees). `maxBatchTokens` is the padding tolerance: when everything
 * waiting fits in it, everything goes together, mixed lengths included. Expired or cancelled
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
  const group = selectBatchGroup(candidates, limits.maxBatchSize, limits.maxBatchTokens);
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
    const items = selectBatchGroup(candidates, largestFormable, limits.maxBatchTokens);
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
 * The token-budget grouping (rule 2). Sorting `candidates` (arrival order, the first is the
 * oldest) by length, a group of `size` requests containing the oldest is padded to at least
 * L(size) = max(oldest's tokens, the size-th shortest length). The group takes the largest size
 * ≤ `maxItems` with size × L(size) ≤ `maxBatchTokens` (size 1 always: the oldest alone), and is
 * the oldest request plus the oldest others no longer than L(size). So no request is padded
 * beyond the shortest length that lets that many share a batch, and among requests that fit
 * equally the older go first. Returned in arrival order; empty only when `candidates` is.
 */
export function selectBatchGroup<T extends QueuedRequest>(
  candidates: readonly T[],
  maxItems: number,
  maxBatchTokens: number,
): T[] {
  const oldest = candidates[0];
  if (oldest === undefined) return [];
  const lengths = candidates.map((request) => request.tokens).sort((a, b) => a - b);
  for (let size = Math.min(Math.max(1, Math.floor(maxItems)), candidates.length); size > 1; size--) {
    const longest = Math.max(oldest.tokens, lengths[size - 1] ?? Number.POSITIVE_INFINITY);
    if (size * longest > maxBatchTokens) continue;
    // At least `size` requests are no longer than `longest`, the oldest among them.
    const group = [oldest];
    for (let i = 1; i < candidates.length && group.length < size; i++) {
      const request = candidates[i];
      if (request !== undefined && request.tokens <= longest) group.push(request);
    }
    return group;
  }
  return [oldest];
}
