import { ArtifactsController } from './artifacts/artifacts.controller.js';
import { TokensController } from './auth/tokens.controller.js';
import { ConfigSnapshotController } from './config-snapshot/config-snapshot.controller.js';
import { EndpointsController } from './endpoints/endpoints.controller.js';
import { HealthController } from './health/health.controller.js';
import { VersionController } from './health/version.controller.js';
import { MetricsController } from './metrics/metrics.controller.js';
import { ModelsController } from './models/models.controller.js';
import { VersionPolicyController } from './models/version-policy.controller.js';
import { RolloutsController } from './rollouts/rollouts.controller.js';
import { NodeReportsController } from './status/node-reports.controller.js';
import { StatusController } from './status/status.controller.js';

/** Every controller of the registry; the route-access test walks this list. */
export const REGISTRY_CONTROLLERS = [
  ModelsController,
  VersionPolicyController,
  EndpointsController,
  RolloutsController,
  ConfigSnapshotController,
  ArtifactsController,
  TokensController,
  StatusController,
  NodeReportsController,
  HealthController,
  VersionController,
  MetricsController,
];
