import { type Route } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { rolloutRoutes, rolloutSource } from './rollout-routes.js';

const previous: Route[] = [
  { model: 'sst2:1', weight: 100, role: 'primary' },
  { model: 'probe:1', weight: 20, role: 'shadow' },
];

describe('rolloutSource', () => {
  it('is the primary of the routes the rollout starts from', () => {
    expect(rolloutSource(previous, 'sst2:2')).toBe('sst2:1');
  });

  it('accepts a candidate that is already a canary, and canaries at 0 %', () => {
    const routes: Route[] = [
      { model: 'sst2:1', weight: 90, role: 'primary' },
      { model: 'sst2:2', weight: 10, role: 'canary' },
      { model: 'sst2:3', weight: 0, role: 'canary' },
    ];
    expect(rolloutSource(routes, 'sst2:2')).toBe('sst2:1');
  });

  it.each<[string, Route[], string, RegExp]>([
    ['the candidate is the primary already', previous, 'sst2:1', /sst2:1 is already the endpoint's primary/],
    [
      'another canary takes live traffic',
      [
        { model: 'sst2:1', weight: 80, role: 'primary' },
        { model: 'sst2:3', weight: 20, role: 'canary' },
      ],
      'sst2:2',
      /another canary is live \(sst2:3 takes 20 %\).*modelgate route set/,
    ],
  ])('refuses with CONFLICT when %s', (_what, routes, candidate, message) => {
    expect(() => rolloutSource(routes, candidate)).toThrow(message);
    expect(() => rolloutSource(routes, candidate)).toThrow(
      expect.objectContaining({ code: 'CONFLICT' }) as Error,
    );
  });
});

describe('rolloutRoutes', () => {
  it.each<[string, Parameters<typeof rolloutRoutes>[2], Route[]]>([
    [
      'warm-up: the candidate routed as a 0 % shadow, other shadows kept',
      { kind: 'warmup' },
      [
        { model: 'sst2:1', weight: 100, role: 'primary' },
        { model: 'sst2:2', weight: 0, role: 'shadow' },
        { model: 'probe:1', weight: 20, role: 'shadow' },
      ],
    ],
    [
      'shadow phase: the candidate mirrored at the shadow share',
      { kind: 'shadow' },
      [
        { model: 'sst2:1', weight: 100, role: 'primary' },
        { model: 'sst2:2', weight: 60, role: 'shadow' },
        { model: 'probe:1', weight: 20, role: 'shadow' },
      ],
    ],
    [
      'a live step: the candidate a canary at the step, the primary the rest',
      { kind: 'live', percent: 25 },
      [
        { model: 'sst2:1', weight: 75, role: 'primary' },
        { model: 'sst2:2', weight: 25, role: 'canary' },
        { model: 'probe:1', weight: 20, role: 'shadow' },
      ],
    ],
    [
      'completed: the candidate the only primary',
      { kind: 'final' },
      [
        { model: 'sst2:2', weight: 100, role: 'primary' },
        { model: 'probe:1', weight: 20, role: 'shadow' },
      ],
    ],
    ['rolled back or aborted: the routes it started from', { kind: 'previous' }, previous],
  ])('%s', (_what, target, expected) => {
    expect(rolloutRoutes(previous, 'sst2:2', target, 60)).toEqual(expected);
  });

  it("replaces the candidate's own earlier route, and puts it back on rollback", () => {
    const manual: Route[] = [
      { model: 'sst2:1', weight: 90, role: 'primary' },
      { model: 'sst2:2', weight: 10, role: 'canary' },
    ];
    expect(rolloutRoutes(manual, 'sst2:2', { kind: 'live', percent: 50 }, 100)).toEqual([
      { model: 'sst2:1', weight: 50, role: 'primary' },
      { model: 'sst2:2', weight: 50, role: 'canary' },
    ]);
    expect(rolloutRoutes(manual, 'sst2:2', { kind: 'previous' }, 100)).toEqual(manual);
  });
});
