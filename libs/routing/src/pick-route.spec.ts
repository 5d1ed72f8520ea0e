import { ErrorCode, type Route } from '@modelgate/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pickRoute, servingOrder, shouldMirror } from './pick-route.js';

const PRIMARY: Route = { model: 'sst2:1', weight: 80, role: 'primary' };
const CANARY: Route = { model: 'sst2:2', weight: 20, role: 'canary' };
const SHADOW: Route = { model: 'sst2:3', weight: 50, role: 'shadow' };

/** A seeded uniform generator in [0, 1) (mulberry32), so draws are repeatable. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shares(draw: (i: number) => Route, count: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const model = draw(i).model;
    counts.set(model, (counts.get(model) ?? 0) + 1);
  }
  return new Map([...counts].map(([model, n]) => [model, n / count]));
}

describe('pickRoute', () => {
  it('splits 80/20 within 1 % over 100k seeded draws', () => {
    const random = seededRandom(42);
    const split = shares(() => pickRoute([PRIMARY, CANARY], { random }).route, 100_000);
    expect(Math.abs((split.get('sst2:1') ?? 0) - 0.8)).toBeLessThan(0.01);
    expect(Math.abs((split.get('sst2:2') ?? 0) - 0.2)).toBeLessThan(0.01);
  });

  it('maps the ends of the draw range onto the first and last route', () => {
    expect(pickRoute([CANARY, PRIMARY], { random: () => 0 }).route).toBe(PRIMARY);
    expect(pickRoute([CANARY, PRIMARY], { random: () => 0.7999 }).route).toBe(PRIMARY);
    expect(pickRoute([CANARY, PRIMARY], { random: () => 0.8 }).route).toBe(CANARY);
    expect(pickRoute([CANARY, PRIMARY], { random: () => 0.999999999 }).route).toBe(CANARY);
  });

  it('gives a sticky key the same route on every call and whatever the list order', () => {
    for (const key of ['alice', 'bob', 'user-17', 'émile', '🤗']) {
      const first = pickRoute([PRIMARY, CANARY], { stickyKey: key }).route;
      for (let i = 0; i < 5; i++) {
        expect(pickRoute([PRIMARY, CANARY], { stickyKey: key, random: Math.random }).route).toBe(first);
        expect(pickRoute([CANARY, SHADOW, PRIMARY], { stickyKey: key }).route).toBe(first);
      }
    }
  });

  it('spreads 10k random sticky keys across routes by weight within 3 %', () => {
    const random = seededRandom(7);
    const keys = Array.from({ length: 10_000 }, () => Math.floor(random() * 2 ** 48).toString(36));
    const split = shares((i) => pickRoute([PRIMARY, CANARY], { stickyKey: keys[i] }).route, keys.length);
    expect(Math.abs((split.get('sst2:1') ?? 0) - 0.8)).toBeLessThan(0.03);
    expect(Math.abs((split.get('sst2:2') ?? 0) - 0.2)).toBeLessThan(0.03);
  });

  it('spreads sequential sticky keys (user-0 … user-9999) by weight within 3 %', () => {
    const split = shares((i) => pickRoute([PRIMARY, CANARY], { stickyKey: `user-${i}` }).route, 10_000);
    expect(Math.abs((split.get('sst2:2') ?? 0) - 0.2)).toBeLessThan(0.03);
  });

  it('keeps sticky clients of a canary on it as its weight grows', () => {
    const keys = Array.from({ length: 2_000 }, (_, i) => `client-${i}`);
    const at = (weight: number): Set<string> =>
      new Set(
        keys.filter(
          (stickyKey) =>
            pickRoute(
              [
                { ...PRIMARY, weight: 100 - weight },
                { ...CANARY, weight },
              ],
              { stickyKey },
            ).route.role === 'canary',
        ),
      );
    const [five, twenty, fifty] = [at(5), at(20), at(50)];
    expect([...five].every((key) => twenty.has(key))).toBe(true);
    expect([...twenty].every((key) => fifty.has(key))).toBe(true);
  });

  it('never chooses a route of weight 0', () => {
    const routes: Route[] = [
      { model: 'sst2:1', weight: 100, role: 'primary' },
      { model: 'sst2:2', weight: 0, role: 'canary' },
    ];
    const random = seededRandom(1);
    for (let i = 0; i < 1_000; i++) {
      expect(pickRoute(routes, { random }).route.model).toBe('sst2:1');
      expect(pickRoute(routes, { stickyKey: `k${i}` }).route.model).toBe('sst2:1');
    }
  });

  it('serves a single route, and returns shadows apart', () => {
    expect(pickRoute([{ ...PRIMARY, weight: 100 }])).toEqual({
      route: { ...PRIMARY, weight: 100 },
      shadows: [],
    });
    expect(pickRoute([SHADOW, PRIMARY, CANARY], { random: () => 0 })).toEqual({
      route: PRIMARY,
      shadows: [SHADOW],
    });
  });

  it('answers UNAVAILABLE when nothing can serve', () => {
    expect(() => pickRoute([])).toThrow(expect.objectContaining({ code: ErrorCode.UNAVAILABLE }));
    expect(() => pickRoute([SHADOW])).toThrow(/no primary or canary route/);
  });

  it('always returns a non-shadow route of weight > 0 from the list (property)', () => {
    const route = fc.record({
      model: fc.stringMatching(/^[a-z]{1,6}:[1-9]$/),
      weight: fc.integer({ min: 0, max: 100 }),
      role: fc.constantFrom('primary' as const, 'canary' as const, 'shadow' as const),
    });
    fc.assert(
      fc.property(
        fc
          .array(route, { maxLength: 6 })
          .filter((routes) => routes.some((r) => r.role !== 'shadow' && r.weight > 0)),
        fc.option(fc.string(), { nil: undefined }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (routes, stickyKey, draw) => {
          const { route: chosen, shadows } = pickRoute(routes, { stickyKey, random: () => draw });
          expect(routes).toContain(chosen);
          expect(chosen.role).not.toBe('shadow');
          expect(chosen.weight).toBeGreaterThan(0);
          expect(shadows.every((s) => s.role === 'shadow' && routes.includes(s))).toBe(true);
        },
      ),
    );
  });
});

describe('servingOrder', () => {
  it('puts the primary first, then canaries by model id, without shadows or zero weights', () => {
    const routes: Route[] = [
      { model: 'b:1', weight: 10, role: 'canary' },
      SHADOW,
      { model: 'a:1', weight: 10, role: 'canary' },
      { model: 'z:1', weight: 80, role: 'primary' },
      { model: 'c:1', weight: 0, role: 'canary' },
    ];
    expect(servingOrder(routes).map((r) => r.model)).toEqual(['z:1', 'a:1', 'b:1']);
  });
});

describe('shouldMirror', () => {
  it('mirrors the shadow weight as a percentage of requests', () => {
    expect(shouldMirror(SHADOW, () => 0.49)).toBe(true);
    expect(shouldMirror(SHADOW, () => 0.5)).toBe(false);
    expect(shouldMirror({ ...SHADOW, weight: 0 }, () => 0)).toBe(false);
  });
});
