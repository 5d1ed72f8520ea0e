import { ErrorCode } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { failureCode, runFailure } from './failure-code.js';

describe('failureCode', () => {
  const call = { receivedAtMs: 10_000, deadlineMs: 10_050 };

  it('counts a cancel that reaches the worker just before its deadline as the deadline', () => {
    expect(failureCode(ErrorCode.CANCELLED, { ...call, nowMs: 10_049 })).toBe(ErrorCode.DEADLINE_EXCEEDED);
    expect(failureCode(ErrorCode.CANCELLED, { ...call, nowMs: 10_025 })).toBe(ErrorCode.DEADLINE_EXCEEDED);
    expect(failureCode(ErrorCode.CANCELLED, { ...call, nowMs: 10_060 })).toBe(ErrorCode.DEADLINE_EXCEEDED);
  });

  it('keeps an early cancel, and allows at most a second of slack on long deadlines', () => {
    expect(failureCode(ErrorCode.CANCELLED, { ...call, nowMs: 10_020 })).toBe(ErrorCode.CANCELLED);
    const long = { receivedAtMs: 0, deadlineMs: 30_000 };
    expect(failureCode(ErrorCode.CANCELLED, { ...long, nowMs: 28_500 })).toBe(ErrorCode.CANCELLED);
    expect(failureCode(ErrorCode.CANCELLED, { ...long, nowMs: 29_100 })).toBe(ErrorCode.DEADLINE_EXCEEDED);
  });

  it('leaves other codes, and cancels of calls without a deadline, as they are', () => {
    expect(failureCode(ErrorCode.INTERNAL, { ...call, nowMs: 10_060 })).toBe(ErrorCode.INTERNAL);
    const none = { receivedAtMs: 0, deadlineMs: Number.POSITIVE_INFINITY, nowMs: 1e12 };
    expect(failureCode(ErrorCode.CANCELLED, none)).toBe(ErrorCode.CANCELLED);
  });
});

describe('runFailure', () => {
  const gather =
    "Non-zero status code returned while running Gather node. Name:'/embeddings/Gather' Status Message: indices element out of data bounds, idx=99999 must be within the inclusive range [-30522,30521]";

  it("answers an index past a table's end as the request's fault while the session lives on", () => {
    const failure = runFailure('bert:1', new Error(gather), true);
    expect(failure.code).toBe(ErrorCode.INVALID_ARGUMENT);
    expect(failure.message).toBe(
      `model bert:1: an input holds an index the model cannot take (a token id beyond its vocabulary?): ${gather}`,
    );
  });

  it('answers any other failure, or one that took the session with it, as INTERNAL', () => {
    expect(runFailure('bert:1', new Error(gather), false).code).toBe(ErrorCode.INTERNAL);
    const other = runFailure('bert:1', new Error('Failed to allocate memory'), true);
    expect(other).toMatchObject({
      code: ErrorCode.INTERNAL,
      message: 'model bert:1: inference failed: Failed to allocate memory',
    });
  });
});
