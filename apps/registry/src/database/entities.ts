import { ApiTokenEntity } from '../auth/api-token.entity.js';
import { EndpointRouteEntity } from '../endpoints/endpoint-route.entity.js';
import { EndpointEntity } from '../endpoints/endpoint.entity.js';
import { RolloutEntity } from '../endpoints/rollout.entity.js';
import { ModelEntity } from '../models/model.entity.js';
import { VersionPolicyEntity } from '../models/version-policy.entity.js';
import { AuditLogEntity } from '../outbox/audit-log.entity.js';
import { ConfigEventEntity } from '../outbox/config-event.entity.js';

/** Every entity of the registry; the tables themselves come from migrations/. */
export const REGISTRY_ENTITIES = [
  ModelEntity,
  VersionPolicyEntity,
  EndpointEntity,
  EndpointRouteEntity,
  RolloutEntity,
  ConfigEventEntity,
  AuditLogEntity,
  ApiTokenEntity,
];
