// @modelgate/routing: which model version serves a request (weights, sticky keys, shadows, pins),
// and progressive rollouts: the window decision, the state machine and each step's routes.
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
  type RolloutWindowNumbers,
  decideRolloutStep,
  quantileMs,
  windowNumbers,
} from './rollout-decision.js';
export {
  type CandidateReadiness,
  type RolloutPlan,
  type RolloutProgress,
  type RolloutTransition,
  type RouteTarget,
  abortRollout,
  candidatePercent,
  checkWarmup,
  endWindow,
  pauseRollout,
  promoteRollout,
  resumeRollout,
  startRollout,
} from './rollout-machine.js';
export { rolloutRoutes, rolloutSource } from './rollout-routes.js';
