import { ACTIVE_ROLLOUT_STATES, ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type EntityManager, In } from 'typeorm';
import { RolloutEntity } from '../endpoints/rollout.entity.js';

/** The endpoint's rollout in progress, if any (locked for update when `lock`). */
export async function findActiveRollout(
  manager: EntityManager,
  endpointId: string,
  lock = false,
): Promise<RolloutEntity | null> {
  return manager.getRepository(RolloutEntity).findOne({
    where: { endpointId, state: In([...ACTIVE_ROLLOUT_STATES]) },
    ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
  });
}

/**
 * CONFLICT when the endpoint has a rollout in progress: its routes belong to the rollout, and a
 * change by hand would be overwritten at its next step. The message says how to get them back.
 */
export async function refuseRouteChangeDuringRollout(
  manager: EntityManager,
  endpoint: { id: string; name: string },
): Promise<void> {
  const active = await findActiveRollout(manager, endpoint.id);
  if (active === null) return;
  throw new ModelgateError(
    ErrorCode.CONFLICT,
    `endpoint ${endpoint.name} has a rollout to ${active.toModel} in progress (${active.state}), which ` +
      `owns its routes: \`modelgate rollout pause ${endpoint.name}\` holds them where they are, ` +
      `\`modelgate rollout abort ${endpoint.name}\` puts the previous routes back so they can be set by hand, ` +
      `\`modelgate rollout promote ${endpoint.name}\` finishes it`,
  );
}
