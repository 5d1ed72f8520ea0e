import { ErrorCode } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { failureCode } from './failure-code.js';

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
