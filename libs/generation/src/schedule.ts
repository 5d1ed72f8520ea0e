// The continuous-batching policy of a decoder (pure; the clock is passed in): between two decode
// steps, which running sequences leave, which waiting ones are dropped and which ones join.

/** Capacity of one model's generation engine. */
export interface GenerationLimits {
  /** Most sequences decoding together (slots). */
  maxSequences: number;
  /**
   * KV-cache budget in tokens. Each sequence reserves promptTokens + maxNewTokens for its whole
   * life, and the batch's cache is padded to its longest row: sequences decode together only
   * while their count × the largest reservation among them fits.
   */
  maxCacheTokens: number;
  /** Most sequences waiting for a slot; beyond, requests are refused (queue-full). */
  maxQueue: number;
  /**
   * The model's positions (config.json n_positions / max_position_embeddings), when known: a
   * sequence needs promptTokens + maxNewTokens of them (too-long beyond).
   */
  maxPositions?: number | undefined;
}

/** A sequence admitted but not started (not prefilled). */
export interface WaitingSequence<Id> {
  id: Id;
  promptTokens: number;
  maxNewTokens: number;
  /** Arrival time: joins are first come, first served. */
  enqueuedAtMs: number;
  /** Past it (nowMs >= deadlineMs) the sequence is dropped. */
  deadlineMs?: number;
  cancelled: boolean;
}

/** A sequence in the running batch. */
export interface RunningSequence<Id> {
  id: Id;
  promptTokens: number;
  maxNewTokens: number;
  generatedTokens: number;
  /** Set by the engine once the last token was an EOS, or maxNewTokens were generated. */
  finished?: 'eos' | 'length';
  cancelled: boolean;
  deadlineMs?: number;
}

/** Why a running sequence leaves the batch. */
export type LeaveReason = 'eos' | 'length' | 'cancelled' | 'deadline';

/** What to do before the next decode step. */
export interface StepPlan<Id> {
  /** Running sequences that leave before the next step (free slot + cache). */
  leave: Array<{ id: Id; reason: LeaveReason }>;
  /** Waiting ones that never start. */
  drop: Array<{ id: Id; reason: 'cancelled' | 'deadline' }>;
  /** Waiting ones to prefill and add, FIFO, within slots and cache budget. */
  join: Id[];
}

/** Cache tokens a sequence holds for its whole life. */
function reservation(sequence: { promptTokens: number; maxNewTokens: number }): number {
  return sequence.promptTokens + sequence.maxNewTokens;
}

function expired(deadlineMs: number | undefined, nowMs: number): boolean {
  return deadlineMs !== undefined && nowMs >= deadlineMs;
}

/**
 * Why a running sequence must leave now, or undefined when it stays. A finished sequence reports
 * its finish reason even when it was also cancelled or is past its deadline (its text is whole);
 * otherwise cancelled comes before deadline. A sequence that generated maxNewTokens leaves with
 * 'length' even if the engine did not mark it.
 */
function leaveReason<Id>(sequence: RunningSequence<Id>, nowMs: number): LeaveReason | undefined {
  if (sequence.finished !== undefined) return sequence.finished;
  if (sequence.generatedTokens >= sequence.maxNewTokens) return 'length';
  if (sequence.cancelled) return 'cancelled';
  if (expired(sequence.deadlineMs, nowMs)) return 'deadline';
  return undefined;
}

/**
 * Plans the step at `nowMs`. A sequence reserves promptTokens + maxNewTokens of cache for its
 * whole life, and a batched cache is padded to its longest row, so the batch costs
 * (staying + joining) × the largest reservation among them; joins are FIFO (by enqueuedAtMs, then
 * by position in `waiting`) and stop at the first one that does not fit the free slots or that
 * padded budget (no overtaking, no starvation: a sequence within the budget always fits an empty
 * batch). A waiting sequence larger than the whole budget would block the queue:
 * {@link admitGeneration} refuses those up front.
 */
export function planGenerationStep<Id>(
  running: readonly RunningSequence<Id>[],
  waiting: readonly WaitingSequence<Id>[],
  limits: GenerationLimits,
  nowMs: number,
): StepPlan<Id> {
  const leave: StepPlan<Id>['leave'] = [];
  let slotsUsed = 0;
  let widest = 0;
  for (const sequence of running) {
    const reason = leaveReason(sequence, nowMs);
    if (reason === undefined) {
      slotsUsed += 1;
      widest = Math.max(widest, reservation(sequence));
    } else {
      leave.push({ id: sequence.id, reason });
    }
  }

  const drop: StepPlan<Id>['drop'] = [];
  const candidates: Array<WaitingSequence<Id>> = [];
  for (const sequence of waiting) {
    if (sequence.cancelled) drop.push({ id: sequence.id, reason: 'cancelled' });
    else if (expired(sequence.deadlineMs, nowMs)) drop.push({ id: sequence.id, reason: 'deadline' });
    else candidates.push(sequence);
  }
  // Array.prototype.sort is stable: equal arrival times keep the caller's order.
  candidates.sort((a, b) => a.enqueuedAtMs - b.enqueuedAtMs);

  const join: Id[] = [];
  for (const sequence of candidates) {
    const width = Math.max(widest, reservation(sequence));
    if (slotsUsed >= limits.maxSequences || (slotsUsed + 1) * width > limits.maxCacheTokens) break;
    join.push(sequence.id);
    slotsUsed += 1;
    widest = width;
  }
  return { leave, drop, join };
}

/** The answer of {@link admitGeneration}. */
export type Admission = { ok: true } | { ok: false; reason: 'queue-full' | 'too-long'; message: string };

/**
 * Whether a new request may wait for a slot. too-long (checked first: retrying cannot help) when
 * promptTokens + maxNewTokens > maxPositions (when known) or > maxCacheTokens; queue-full when
 * `waitingCount >= maxQueue`.
 */
export function admitGeneration(
  waitingCount: number,
  request: { promptTokens: number; maxNewTokens: number },
  limits: GenerationLimits,
): Admission {
  const size = reservation(request);
  if (limits.maxPositions !== undefined && size > limits.maxPositions) {
    return {
      ok: false,
      reason: 'too-long',
      message: `the prompt (${request.promptTokens} tokens) plus max_new_tokens (${request.maxNewTokens}) is ${size} tokens, over the model's ${limits.maxPositions} positions`,
    };
  }
  if (size > limits.maxCacheTokens) {
    return {
      ok: false,
      reason: 'too-long',
      message: `the prompt (${request.promptTokens} tokens) plus max_new_tokens (${request.maxNewTokens}) is ${size} tokens, over the model's cache budget of ${limits.maxCacheTokens} tokens per sequence`,
    };
  }
  if (waitingCount >= limits.maxQueue) {
    return {
      ok: false,
      reason: 'queue-full',
      message: `the generation queue is full (${limits.maxQueue} sequences waiting for a slot)`,
    };
  }
  return { ok: true };
}
