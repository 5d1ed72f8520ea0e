import { BullModule } from '@nestjs/bullmq';
import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { HfHub, readProxySettings } from '@modelgate/model-store';
import { type Logger } from '@modelgate/observability';
import { ApiExceptionFilter } from './admin-api/api-exception.filter.js';
import { ArtifactStore } from './artifacts/artifact-store.js';
import { AuthGuard } from './auth/auth.guard.js';
import { BootstrapTokenService } from './auth/bootstrap-token.service.js';
import { TokensService } from './auth/tokens.service.js';
import { ConfigSnapshotService } from './config-snapshot/config-snapshot.service.js';
import { dataSourceOptions } from './database/data-source-options.js';
import { REGISTRY_ENTITIES } from './database/entities.js';
import { EndpointsService } from './endpoints/endpoints.service.js';
import { RegistryMetrics } from './metrics/registry-metrics.js';
import { BullPreparationQueue } from './model-preparation/bullmq-preparation.queue.js';
import { InProcessPreparationQueue } from './model-preparation/in-process-preparation.queue.js';
import { ModelPreparationService, PREPARATION_DEPS } from './model-preparation/model-preparation.service.js';
import { openOnnxModelOnThread } from './model-preparation/onnx-inspector-thread.js';
import { PreparationFetcher } from './model-preparation/preparation-fetcher.js';
import { type PreparationDeps } from './model-preparation/prepare-model.js';
import { MODEL_PREPARATION_QUEUE, PREPARATION_QUEUE } from './model-preparation/preparation-queue.js';
import { HfModelImporter, MODEL_IMPORTER } from './model-import/hf-model-importer.js';
import { ArtifactUriPolicy } from './models/artifact-uri-policy.js';
import { ModelUploadService } from './models/model-upload.service.js';
import { ModelsService } from './models/models.service.js';
import { VersionPolicyService } from './models/version-policy.service.js';
import { CONFIG_BUS, type ConfigBus, InProcessConfigBus, RedisConfigBus } from './outbox/config-bus.js';
import { ConfigChangesService } from './outbox/config-changes.service.js';
import { OutboxRelay } from './outbox/outbox-relay.service.js';
import { RevisionFloor } from './outbox/revision-floor.service.js';
import { type RegistryConfig } from './registry.config.js';
import { ROLLOUT_CLOCK } from './rollouts/rollout-clock.js';
import { RolloutDriver } from './rollouts/rollout-driver.service.js';
import {
  type HeartbeatSource,
  NoHeartbeatSource,
  ROLLOUT_HEARTBEATS,
  RedisHeartbeatSource,
} from './rollouts/rollout-heartbeats.js';
import { RolloutsService } from './rollouts/rollouts.service.js';
import { FleetStatusService } from './status/fleet-status.service.js';
import { NodeReports } from './status/node-reports.js';
import { REGISTRY_CONTROLLERS } from './registry.controllers.js';
import { LOGGER, REGISTRY_CONFIG } from './registry.tokens.js';

@Module({})
export class RegistryModule {
  /** The registry for one configuration: Redis-backed when REDIS_URL is set, in-process otherwise. */
  static forRoot(config: RegistryConfig, logger: Logger): DynamicModule {
    const artifacts = new ArtifactStore(config.REGISTRY_ARTIFACT_DIR, config.REGISTRY_PUBLIC_URL);
    const deps: PreparationDeps = {
      fetcher: new PreparationFetcher(config, artifacts),
      open: (path, fileLabel) =>
        openOnnxModelOnThread(path, fileLabel, {
          ...(config.REGISTRY_TEST_HOLD_PREPARATION_FILE
            ? { holdFile: config.REGISTRY_TEST_HOLD_PREPARATION_FILE }
            : {}),
        }),
    };
    const uriPolicy = new ArtifactUriPolicy(
      {
        fileRoots: config.REGISTRY_ARTIFACT_ROOTS,
        allowHttp: config.REGISTRY_ALLOW_HTTP_ARTIFACTS,
        allowedHosts: config.REGISTRY_ARTIFACT_ALLOWED_HOSTS,
        hfEndpoint: config.HF_ENDPOINT,
      },
      artifacts,
    );
    const importer = new HfModelImporter(
      new HfHub({
        endpoint: config.HF_ENDPOINT,
        ...(config.HF_TOKEN === undefined ? {} : { token: config.HF_TOKEN }),
        allowedHosts: config.REGISTRY_ARTIFACT_ALLOWED_HOSTS,
        timeoutMs: config.REGISTRY_ARTIFACT_FETCH_TIMEOUT_MS,
        proxy: readProxySettings(config),
      }),
      artifacts,
      config.REGISTRY_ARTIFACT_MAX_BYTES,
    );
    const redisUrl = config.REDIS_URL;
    const bus: ConfigBus =
      redisUrl === undefined
        ? new InProcessConfigBus()
        : new RedisConfigBus(redisUrl, config.REDIS_KEY_PREFIX);
    // Rollouts judge candidates by the gateways' heartbeats, which only Redis carries.
    const heartbeats: HeartbeatSource =
      redisUrl === undefined
        ? new NoHeartbeatSource()
        : new RedisHeartbeatSource(redisUrl, config.REDIS_KEY_PREFIX);
    const queueImports =
      redisUrl === undefined
        ? []
        : [
            // The queue's commands fail after one reconnection attempt while Redis is down, rather than
            // wait minutes and then fail: registration answers meanwhile (the model stays PENDING),
            // and BullPreparationQueue queues every unfinished model again once Redis is back.
            BullModule.forRoot({
              connection: { url: redisUrl, maxRetriesPerRequest: 1 },
              prefix: config.REDIS_KEY_PREFIX,
            }),
            BullModule.registerQueue({ name: MODEL_PREPARATION_QUEUE }),
          ];
    const queueProvider: Provider =
      redisUrl === undefined
        ? { provide: PREPARATION_QUEUE, useClass: InProcessPreparationQueue }
        : { provide: PREPARATION_QUEUE, useClass: BullPreparationQueue };

    return {
      module: RegistryModule,
      imports: [
        TypeOrmModule.forRoot({
          ...dataSourceOptions(config, { entities: REGISTRY_ENTITIES }),
          retryAttempts: 3,
          retryDelay: 1000,
        }),
        ...queueImports,
      ],
      controllers: REGISTRY_CONTROLLERS,
      providers: [
        { provide: REGISTRY_CONFIG, useValue: config },
        { provide: LOGGER, useValue: logger },
        { provide: RegistryMetrics, useValue: new RegistryMetrics() },
        { provide: ArtifactStore, useValue: artifacts },
        { provide: ArtifactUriPolicy, useValue: uriPolicy },
        { provide: PREPARATION_DEPS, useValue: deps },
        { provide: MODEL_IMPORTER, useValue: importer },
        { provide: CONFIG_BUS, useValue: bus },
        { provide: ROLLOUT_HEARTBEATS, useValue: heartbeats },
        { provide: ROLLOUT_CLOCK, useValue: () => Date.now() },
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        OutboxRelay,
        ConfigChangesService,
        RevisionFloor,
        TokensService,
        BootstrapTokenService,
        ModelsService,
        VersionPolicyService,
        ModelUploadService,
        EndpointsService,
        RolloutsService,
        RolloutDriver,
        ConfigSnapshotService,
        FleetStatusService,
        { provide: NodeReports, useValue: new NodeReports() },
        ModelPreparationService,
        queueProvider,
      ],
    };
  }
}
