// Whether the fleet can serve a rollout's candidate yet, from the workers' heartbeats. Pure.
import { type NodeHeartbeat } from '@modelgate/config-sync';
import { type CandidateReadiness } from '@modelgate/routing';

/**
 * A worker's reason once it has given up loading a model (the worker's model manager says "gave
 * up after N attempts"); while it still retries, the rollout waits.
 */
const GAVE_UP = /\bgave up\b/;

/**
 * `ready` once any worker reports `model` READY; `failed` when every worker that lists it has
 * given up loading it (with their reasons); otherwise `waiting`, saying for what.
 */
export function candidateReadiness(heartbeats: readonly NodeHeartbeat[], model: string): CandidateReadiness {
  const listing = heartbeats.filter((beat) => beat.role === 'worker' && beat.models[model] !== undefined);
  if (listing.some((beat) => beat.models[model] === 'READY')) return { state: 'ready' };
  const gaveUp = (beat: NodeHeartbeat) =>
    beat.models[model] === 'FAILED' && GAVE_UP.test(beat.reasons[model] ?? '');
  if (listing.length > 0 && listing.every(gaveUp)) {
    const reasons = listing.map((beat) => `${beat.id}: ${beat.reasons[model] ?? 'FAILED'}`);
    return { state: 'failed', reason: reasons.join('; ') };
  }
  if (listing.length === 0) {
    return {
      state: 'waiting',
      reason: `no worker has reported ${model} yet (is a worker of its group running?)`,
    };
  }
  const states = listing
    .map((beat) => `${beat.id} ${beat.models[model]}${beat.reasons[model] ? `: ${beat.reasons[model]}` : ''}`)
    .join(', ');
  return { state: 'waiting', reason: `waiting for a worker to report ${model} READY (${states})` };
}
