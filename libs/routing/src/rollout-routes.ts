// The routes of an endpoint at each point of a rollout, from the routes it had when the rollout
// began. Other shadows are kept throughout (they only get mirrored copies); the candidate's own
// earlier route, if any, is replaced by the rollout's.
import { ErrorCode, ModelgateError, type Route } from '@modelgate/contracts';
import { type RouteTarget } from './rollout-machine.js';

/**
 * The model a rollout of `candidate` moves traffic from: the primary of `previous`. CONFLICT when
 * the candidate is already that primary, or when another model takes live traffic as a canary
 * (a rollout splits traffic between the primary and the candidate only).
 */
export function rolloutSource(previous: readonly Route[], candidate: string): string {
  const primary = previous.find((route) => route.role === 'primary');
  if (primary === undefined) {
    throw new ModelgateError(ErrorCode.CONFLICT, 'the endpoint has no primary route to roll out from');
  }
  if (primary.model === candidate) {
    throw new ModelgateError(ErrorCode.CONFLICT, `${candidate} is already the endpoint's primary`, {
      field: 'to',
    });
  }
  const others = previous.filter(
    (route) => route.role === 'canary' && route.weight > 0 && route.model !== candidate,
  );
  if (others.length > 0) {
    const shares = others.map((route) => `${route.model} takes ${route.weight} %`).join(', ');
    throw new ModelgateError(
      ErrorCode.CONFLICT,
      `another canary is live (${shares}): a rollout splits traffic between the primary ${primary.model} ` +
        `and ${candidate} only; set the routes to the primary alone first (modelgate route set)`,
    );
  }
  return primary.model;
}

/**
 * The endpoint's routes for `target`: warmup = the primary at 100 % and the candidate as a 0 %
 * shadow (routed, so loaded, but sent nothing); shadow = the candidate mirrored `shadowPercent` %
 * of requests; live = the candidate as a canary at the step's percent, the primary the rest;
 * final = the candidate as the only primary; previous = `previous` unchanged.
 */
export function rolloutRoutes(
  previous: readonly Route[],
  candidate: string,
  target: RouteTarget,
  shadowPercent: number,
): Route[] {
  if (target.kind === 'previous') return previous.map((route) => ({ ...route }));
  const from = rolloutSource(
    previous.filter((route) => route.role !== 'canary' || route.model === candidate),
    candidate,
  );
  const shadows = previous.filter(
    (route) => route.role === 'shadow' && route.model !== candidate && route.model !== from,
  );
  const primary = (weight: number): Route => ({ model: from, weight, role: 'primary' });
  switch (target.kind) {
    case 'warmup':
      return [primary(100), { model: candidate, weight: 0, role: 'shadow' }, ...shadows];
    case 'shadow':
      return [primary(100), { model: candidate, weight: shadowPercent, role: 'shadow' }, ...shadows];
    case 'live':
      return [
        primary(100 - target.percent),
        { model: candidate, weight: target.percent, role: 'canary' },
        ...shadows,
      ];
    case 'final':
      return [{ model: candidate, weight: 100, role: 'primary' }, ...shadows];
  }
}
