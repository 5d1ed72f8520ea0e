import { describe, expect, it } from 'vitest';
import { RetryBudget } from './retry-budget.js';

function budgetAt(options: ConstructorParameters<typeof RetryBudget>[0] = {}) {
  const time = { now: 0 };
  return { budget: new RetryBudget(options, () => time.now), time };
}

function acquire(budget: RetryBudget, times: number): number {
  let granted = 0;
  for (let i = 0; i < times; i++) if (budget.tryAcquireRetry()) granted++;
  return granted;
}

describe('RetryBudget', () => {
  it('allows minRetries per window to a client with no traffic', () => {
    const { budget } = budgetAt();
    expect(acquire(budget, 10)).toBe(3);
    expect(budget.state()).toEqual({ requests: 0, retries: 3, limit: 3 });
  });

  it('allows 20 % of the requests started in the window once that exceeds the minimum', () => {
    const { budget } = budgetAt();
    for (let i = 0; i < 100; i++) budget.recordRequest();
    expect(budget.state().limit).toBe(20);
    expect(acquire(budget, 50)).toBe(20);
  });

  it('rounds the share down: 19 requests give max(3, 3.8) = 3 retries', () => {
    const { budget } = budgetAt();
    for (let i = 0; i < 19; i++) budget.recordRequest();
    expect(acquire(budget, 10)).toBe(3);
  });

  it('frees the budget again as spent retries slide out of the window', () => {
    const { budget, time } = budgetAt();
    expect(acquire(budget, 5)).toBe(3);
    time.now = 999;
    expect(budget.tryAcquireRetry()).toBe(false);
    time.now = 1000;
    expect(acquire(budget, 5)).toBe(3);
  });

  it('forgets requests older than the window, so a lull shrinks the share', () => {
    const { budget, time } = budgetAt();
    for (let i = 0; i < 100; i++) budget.recordRequest();
    time.now = 500;
    expect(budget.state().limit).toBe(20);
    time.now = 1000;
    expect(budget.state()).toEqual({ requests: 0, retries: 0, limit: 3 });
  });

  it('counts traffic from every slot of the sliding window', () => {
    const { budget, time } = budgetAt({ windowMs: 1000, slots: 10 });
    for (let t = 0; t < 1000; t += 100) {
      time.now = t;
      for (let i = 0; i < 10; i++) budget.recordRequest();
    }
    expect(budget.state().requests).toBe(100);
    time.now = 1050; // the slot of [0, 100) has left the window
    expect(budget.state().requests).toBe(90);
  });

  it('never retries with ratio 0 and minRetries 0', () => {
    const { budget } = budgetAt({ ratio: 0, minRetries: 0 });
    for (let i = 0; i < 100; i++) budget.recordRequest();
    expect(budget.tryAcquireRetry()).toBe(false);
  });

  it('rejects settings that make no sense', () => {
    expect(() => new RetryBudget({ ratio: -1 })).toThrow(RangeError);
    expect(() => new RetryBudget({ windowMs: 0 })).toThrow(RangeError);
  });
});
