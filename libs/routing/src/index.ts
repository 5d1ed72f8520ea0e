// @modelgate/routing: which model version serves a request (weights, sticky keys, shadows, pins).
export {
  type PickRouteOptions,
  type RouteChoice,
  pickRoute,
  servingOrder,
  shouldMirror,
} from './pick-route.js';
export { type VersionedModel, pinVersion } from './pin-version.js';
export { murmur3 } from './sticky-hash.js';
export {
  type LatencyBuckets,
  type RolloutThresholds,
  type RolloutVerdict,
  type RolloutWindow,
  decideRolloutStep,
  quantileMs,
} from './rollout-decision.js';
