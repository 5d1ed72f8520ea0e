import { BATCHING_DEFAULTS, ErrorCode, ModelgateError } from '@modelgate/contracts';

/**
 * One model's batching knobs: the `batching` block of a ModelSpec (DESIGN §3.3). The names and
 * meanings follow Triton's dynamic batcher, plus TEI's token budget.
 */
export interface BatchLimits {
  /**
   * Most requests in one batch (Triton `max_batch_size`). Reaching it dispatches at once.
   * @defaultValue 32
   */
  readonly maxBatchSize: number;
  /**
   * Batch sizes the model runs best at (Triton `preferred_batch_size`), each in 1..maxBatchSize.
   * When one can be formed, the largest such is dispatched; with none configured the batcher never
   * waits for more requests.
   * @defaultValue []
   */
  readonly preferredBatchSizes: readonly number[];
  /**
   * Longest a batch below a preferred size may wait for more requests, counted from its OLDEST
   * request's arrival (Triton `max_queue_delay_microseconds`). 0 never waits.
   * @defaultValue 2000
   */
  readonly maxQueueDelayMicros: number;
  /**
   * Budget for a batch's padded size, batch × longest sequence, in tokens (TEI
   * `max_batch_tokens`). A single request longer than the budget still runs, alone.
   * `Infinity` turns the budget off.
   * @defaultValue 16384
   */
  readonly maxBatchTokens: number;
  /**
   * Length grouping: a batch of two or more requests keeps its computed tokens (count × longest)
   * within this multiple of its real tokens (the sum of their lengths). 1 batches only equal
   * lengths; `Infinity` pads everything that fits `maxBatchTokens` to the longest.
   * @defaultValue 1.15
   */
  readonly maxPaddingRatio: number;
  /**
   * Most requests waiting (not yet dispatched); one more is refused with QUEUE_FULL. Never
   * unbounded, unlike Triton's 0.
   * @defaultValue 256
   */
  readonly maxQueueSize: number;
  /**
   * How long a request may wait and run when its caller sent no deadline, in milliseconds.
   * @defaultValue 10000
   */
  readonly defaultTimeoutMs: number;
}

/** The limits used for any field a ModelSpec leaves out: the schema's own defaults (BATCHING_DEFAULTS). */
export const DEFAULT_BATCH_LIMITS: BatchLimits = BATCHING_DEFAULTS;

/**
 * Fills `overrides` from {@link DEFAULT_BATCH_LIMITS} and checks it; preferred sizes come back
 * sorted and de-duplicated. Throws INVALID_ARGUMENT naming the bad field.
 */
export function resolveBatchLimits(overrides: Partial<BatchLimits> = {}): BatchLimits {
  const d = DEFAULT_BATCH_LIMITS;
  const maxBatchSize = overrides.maxBatchSize ?? d.maxBatchSize;
  requireInteger('maxBatchSize', maxBatchSize, 1);
  const preferred = [...new Set(overrides.preferredBatchSizes ?? d.preferredBatchSizes)].sort(
    (a, b) => a - b,
  );
  for (const size of preferred) {
    requireInteger('preferredBatchSizes', size, 1);
    if (size > maxBatchSize) {
      throw invalid(
        'preferredBatchSizes',
        `preferred batch size ${size} exceeds maxBatchSize ${maxBatchSize}`,
      );
    }
  }
  const limits: BatchLimits = {
    maxBatchSize,
    preferredBatchSizes: Object.freeze(preferred),
    maxQueueDelayMicros: overrides.maxQueueDelayMicros ?? d.maxQueueDelayMicros,
    maxBatchTokens: overrides.maxBatchTokens ?? d.maxBatchTokens,
    maxPaddingRatio: overrides.maxPaddingRatio ?? d.maxPaddingRatio,
    maxQueueSize: overrides.maxQueueSize ?? d.maxQueueSize,
    defaultTimeoutMs: overrides.defaultTimeoutMs ?? d.defaultTimeoutMs,
  };
  requireNumber('maxQueueDelayMicros', limits.maxQueueDelayMicros, 0, false);
  requireNumber('maxBatchTokens', limits.maxBatchTokens, 1, true);
  requireNumber('maxPaddingRatio', limits.maxPaddingRatio, 1, true);
  requireInteger('maxQueueSize', limits.maxQueueSize, 1);
  requireInteger('defaultTimeoutMs', limits.defaultTimeoutMs, 1);
  return Object.freeze(limits);
}

function requireInteger(field: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min)
    throw invalid(field, `${field} must be an integer >= ${min}`);
}

function requireNumber(field: string, value: number, min: number, allowInfinity: boolean): void {
  const finiteOk = Number.isFinite(value) || (allowInfinity && value === Number.POSITIVE_INFINITY);
  if (!finiteOk || value < min) throw invalid(field, `${field} must be a number >= ${min}`);
}

function invalid(field: string, message: string): ModelgateError {
  return new ModelgateError(ErrorCode.INVALID_ARGUMENT, `invalid batching limits: ${message}`, {
    field: `batching.${field}`,
  });
}
