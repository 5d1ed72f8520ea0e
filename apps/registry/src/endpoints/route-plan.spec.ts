import { isModelgateError, type RouteRequest } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { planRoutes } from './route-plan.js';

function failure(routes: RouteRequest[]): string {
  try {
    planRoutes(routes);
  } catch (error) {
    if (isModelgateError(error)) return error.message;
    throw error;
  }
  throw new Error('expected planRoutes to refuse');
}

describe('planRoutes', () => {
  it('makes the heaviest route primary and the rest canaries when no roles are given', () => {
    expect(
      planRoutes([
        { model: 'a:1', weight: 10 },
        { model: 'a:2', weight: 90 },
      ]),
    ).toEqual([
      { model: 'a:1', weight: 10, role: 'canary' },
      { model: 'a:2', weight: 90, role: 'primary' },
    ]);
  });

  it('picks the first of equally heavy routes as primary', () => {
    expect(
      planRoutes([
        { model: 'a:1', weight: 50 },
        { model: 'a:2', weight: 50 },
      ]).map((route) => route.role),
    ).toEqual(['primary', 'canary']);
  });

  it('keeps given roles and fills in canary for the others once a primary is named', () => {
    expect(
      planRoutes([
        { model: 'a:1', weight: 20, role: 'primary' },
        { model: 'a:2', weight: 80 },
        { model: 'a:3', weight: 100, role: 'shadow' },
      ]).map((route) => route.role),
    ).toEqual(['primary', 'canary', 'shadow']);
  });

  it('does not count shadow routes towards the 100', () => {
    expect(() =>
      planRoutes([
        { model: 'a:1', weight: 100 },
        { model: 'a:2', weight: 50, role: 'shadow' },
      ]),
    ).not.toThrow();
  });

  it('refuses weights that do not sum to 100, saying what they sum to', () => {
    expect(
      failure([
        { model: 'a:1', weight: 90 },
        { model: 'a:2', weight: 20 },
      ]),
    ).toContain('must sum to 100, got 110 (a:1=90 + a:2=20)');
  });

  it('refuses two primaries, an empty list and the same model twice', () => {
    expect(
      failure([
        { model: 'a:1', weight: 50, role: 'primary' },
        { model: 'a:2', weight: 50, role: 'primary' },
      ]),
    ).toContain('exactly one primary route, got 2');
    expect(failure([])).toContain('at least one route');
    expect(
      failure([
        { model: 'a:1', weight: 50 },
        { model: 'a:1', weight: 50 },
      ]),
    ).toContain('routes[1].model: routes to a:1 twice');
  });
});
