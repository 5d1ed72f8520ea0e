import { describe, expect, it } from 'vitest';
import { SessionPool } from './session-pool.js';

describe('SessionPool', () => {
  it('gives a batch that would run by itself the solo session', () => {
    const pool = new SessionPool(['a', 'b'], 'solo');
    expect(pool.take(true)).toBe('solo');
    expect(pool.isSolo('solo')).toBe(true);
    expect(pool.isSolo('a')).toBe(false);
  });

  it('gives an instance to a batch that found others running or queued, so the next batch has the other', () => {
    const pool = new SessionPool(['a', 'b'], 'solo');
    const first = pool.take(false);
    expect(first).not.toBe('solo');
    expect(pool.take(true)).not.toBe('solo'); // an instance is busy
    expect(pool.take(true)).toBeUndefined();
  });

  it('gives an instance to a batch that starts while the solo session runs, and the solo session again once all are back', () => {
    const pool = new SessionPool(['a', 'b'], 'solo');
    expect(pool.take(true)).toBe('solo');
    const during = pool.take(true);
    expect(during === 'a' || during === 'b').toBe(true);
    pool.give('solo');
    const other = pool.take(true);
    pool.give(during!);
    pool.give(other!);
    expect(pool.take(true)).toBe('solo');
  });

  it('never gives the solo session twice at once, nor while an instance runs', () => {
    const pool = new SessionPool(['a', 'b'], 'solo');
    const taken = [pool.take(true), pool.take(true), pool.take(true), pool.take(true)];
    expect(taken.filter((session) => session === 'solo')).toHaveLength(1);
    expect(taken.filter((session) => session === undefined)).toHaveLength(1);
    for (const session of taken) if (session !== undefined) pool.give(session);
    expect(pool.take(true)).toBe('solo');
  });

  it('without a solo session hands out the instances only', () => {
    const pool = new SessionPool(['a', 'b']);
    expect([pool.take(true), pool.take(true)].sort()).toEqual(['a', 'b']);
    expect(pool.take(true)).toBeUndefined();
    pool.give('a');
    expect(pool.take(true)).toBe('a');
  });

  it('leaves the solo session unused while a lost instance is out of the pool', () => {
    const pool = new SessionPool(['a', 'b'], 'solo');
    expect(pool.take(false)).not.toBe('solo'); // taken, and (its thread died) never given back
    expect(pool.take(true)).not.toBe('solo');
  });
});
