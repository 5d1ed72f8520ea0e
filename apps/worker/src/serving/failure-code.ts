import { ErrorCode, ModelgateError } from '@modelgate/contracts';

/** The most a cancel may come before the worker's deadline and still count as the deadline, in ms. */
const MAX_DEADLINE_SLACK_MS = 1000;

/**
 * The code a failed call is counted under. A client whose deadline passes cancels its call, and
 * that cancel can reach the worker before the worker's own deadline timer fires: the worker starts
 * its clock when the headers arrive, after the client started its own. So a cancel in the last half
 * of the call's time (at most the last second) counts as DEADLINE_EXCEEDED; an earlier one is a
 * real cancel. `receivedAtMs` and `deadlineMs` are epoch ms (deadline Infinity: none).
 */
export function failureCode(
  code: ErrorCode,
  timing: { receivedAtMs: number; deadlineMs: number; nowMs: number },
): ErrorCode {
  if (code !== ErrorCode.CANCELLED || !Number.isFinite(timing.deadlineMs)) return code;
  const slack = Math.min(MAX_DEADLINE_SLACK_MS, Math.max(0, (timing.deadlineMs - timing.receivedAtMs) / 2));
  return timing.nowMs >= timing.deadlineMs - slack ? ErrorCode.DEADLINE_EXCEEDED : code;
}

/** onnxruntime's Gather on an index outside its table: `idx=99999 must be within the inclusive range [-30522,30521]`. */
const INDEX_OUT_OF_RANGE = /must be within the inclusive range|out of data bounds/;

/**
 * The error of a session run onnxruntime refused. An index past a table's end (a token id beyond
 * the vocabulary), refused by a session that lives on, is the request's fault: INVALID_ARGUMENT.
 * Anything else is INTERNAL.
 */
export function runFailure(modelId: string, error: unknown, sessionAlive: boolean): ModelgateError {
  const reason = error instanceof Error ? error.message : String(error);
  if (sessionAlive && INDEX_OUT_OF_RANGE.test(reason)) {
    return new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `model ${modelId}: an input holds an index the model cannot take (a token id beyond its vocabulary?): ${reason}`,
      {},
      { cause: error },
    );
  }
  return new ModelgateError(
    ErrorCode.INTERNAL,
    `model ${modelId}: inference failed: ${reason}`,
    {},
    { cause: error },
  );
}
