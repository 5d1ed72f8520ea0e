import {
  type DynamicModule,
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { ModelStore, readProxySettings } from '@modelgate/model-store';
import { type Logger } from '@modelgate/observability';
import { availableParallelism, hostname } from 'node:os';
import {
  type ConfigSource,
  HeartbeatPublisher,
  registryTarget,
  createNodeConfigSource,
  dialableHost,
  withPort,
  nodeId,
  registryArtifactAccess,
} from '@modelgate/config-sync';
import { GrpcHealthController } from './health/grpc-health.controller.js';
import { HttpProbesController } from './health/http-probes.controller.js';
import { WorkerMetrics } from './metrics/worker-metrics.js';
import { ModelManager } from './model-loading/model-manager.js';
import { GenerationController } from './serving/generation.controller.js';
import { InferenceController } from './serving/inference.controller.js';
import { type WorkerConfig } from './worker.config.js';
import { CONFIG_SOURCE, LOGGER, WORKER_CONFIG } from './worker.tokens.js';

/** Heartbeats of this worker, when Redis is configured. */
export const HEARTBEAT = Symbol('HEARTBEAT');
/** The gRPC address this worker heartbeats (advertisedAddress below). */
export const ADVERTISED_ADDRESS = Symbol('ADVERTISED_ADDRESS');

/**
 * Feeds snapshots from the config source to the model manager once the servers are up, and
 * heartbeats the result (DESIGN §3.4).
 */
@Injectable()
export class SnapshotApplier implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(CONFIG_SOURCE) private readonly source: ConfigSource,
    private readonly models: ModelManager,
    @Inject(HEARTBEAT) private readonly heartbeat: HeartbeatPublisher | undefined,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.heartbeat?.start();
    // Not awaited: the servers answer (not ready) while models load.
    this.source
      .start(async (snapshot) => {
        this.logger.info(
          { revision: snapshot.revision, models: snapshot.models.length },
          'applying config snapshot',
        );
        // Not awaited either: a slow load must not hold the next snapshot (models load on their
        // own; applySnapshot settles once this revision's loads have finished or been given up).
        const applying = this.models.applySnapshot(snapshot);
        await this.heartbeat?.beat(); // LOADING states are visible at once
        void applying
          .then(async () => {
            await this.heartbeat?.beat();
            this.logger.info(
              { revision: snapshot.revision, states: this.models.states() },
              'config snapshot applied',
            );
          })
          .catch((error: unknown) => this.logger.error({ err: error }, 'applying a config snapshot failed'));
      })
      .catch((error: unknown) => this.logger.error({ err: error }, 'config source failed'));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.source.stop();
    await this.heartbeat?.stop();
  }
}

@Module({})
export class WorkerModule {
  /** The worker's module for one configuration. */
  static forRoot(config: WorkerConfig, logger: Logger): DynamicModule {
    const metrics = new WorkerMetrics();
    const store = new ModelStore({
      cacheDir: config.WORKER_CACHE_DIR,
      fileRoots: config.WORKER_ARTIFACT_ROOTS,
      allowHttp: config.WORKER_ALLOW_HTTP_ARTIFACTS,
      s3: { endpointUrl: config.S3_ENDPOINT_URL },
      proxy: readProxySettings(config),
      ...registryArtifactAccess(
        config.REGISTRY_URL,
        config.REGISTRY_TOKEN,
        config.WORKER_ARTIFACT_ALLOWED_HOSTS,
      ),
    });
    const models = new ModelManager({
      workerGroup: config.WORKER_GROUP,
      retry: {
        baseDelayMs: config.WORKER_LOAD_RETRY_BASE_MS,
        maxDelayMs: config.WORKER_LOAD_RETRY_MAX_MS,
        maxAttempts: config.WORKER_LOAD_RETRY_ATTEMPTS,
      },
      unloadGraceMs: config.WORKER_UNLOAD_GRACE_MS,
      gpu: {
        deviceId: config.WORKER_CUDA_DEVICE_ID,
      },
      soloSession: config.WORKER_SOLO_SESSION,
      soloSpinning: config.WORKER_SOLO_SPINNING,
      inline: {
        // WORKER_SOLO_SESSION=false opens no solo session, inline or not (the config refuses both).
        enabled: config.WORKER_INLINE && config.WORKER_SOLO_SESSION,
        maxMicros: config.WORKER_INLINE_MAX_MS * 1000,
        spinAfterRuns: config.WORKER_INLINE_IDLE_SPIN,
      },
      prefillChunking: { chunkTokens: config.WORKER_PREFILL_CHUNK_TOKENS },
      cores: availableParallelism(),
      fetcher: store,
      metrics,
      logger,
    });
    metrics.reportConfigRevision(() => models.revision);
    metrics.reportQueueDepths(() => models.queueDepths());
    metrics.reportGenerationLoads(() => models.generationLoads());
    const onError = (message: string, error: unknown): void => logger.warn({ err: error }, message);
    const source: ConfigSource = createNodeConfigSource({
      registryUrl: config.REGISTRY_URL,
      registryToken: config.REGISTRY_TOKEN,
      redisUrl: config.REDIS_URL,
      keyPrefix: config.REDIS_KEY_PREFIX,
      reconcileIntervalMs: config.WORKER_RECONCILE_INTERVAL_MS,
      configFile: config.WORKER_CONFIG_FILE,
      onError,
    });
    const address = advertisedAddress(config);
    // To Redis (discovery and status), else — or when Redis writes fail — to the registry (status).
    const heartbeat =
      config.REDIS_URL !== undefined || config.REGISTRY_URL !== undefined
        ? new HeartbeatPublisher({
            ...(config.REDIS_URL === undefined ? {} : { redisUrl: config.REDIS_URL }),
            ...(config.REGISTRY_URL === undefined
              ? {}
              : { registry: registryTarget(config.REGISTRY_URL, config.REGISTRY_TOKEN) }),
            keyPrefix: config.REDIS_KEY_PREFIX,
            ttlMs: config.WORKER_HEARTBEAT_TTL_MS,
            describe: () => ({
              role: 'worker',
              id: nodeId(hostname(), process.pid),
              address,
              workerGroup: config.WORKER_GROUP,
              revision: models.revision ?? null,
              // A draining worker must leave routing at once.
              models: models.isDraining ? {} : models.states(),
              reasons: models.isDraining ? {} : models.failureReasons(),
            }),
            onError,
          })
        : undefined;
    return {
      module: WorkerModule,
      controllers: [InferenceController, GenerationController, GrpcHealthController, HttpProbesController],
      providers: [
        { provide: WORKER_CONFIG, useValue: config },
        { provide: LOGGER, useValue: logger },
        { provide: WorkerMetrics, useValue: metrics },
        { provide: ModelManager, useValue: models },
        { provide: CONFIG_SOURCE, useValue: source },
        { provide: HEARTBEAT, useValue: heartbeat },
        { provide: ADVERTISED_ADDRESS, useValue: address },
        SnapshotApplier,
      ],
    };
  }
}

/**
 * The gRPC address this worker heartbeats: WORKER_ADVERTISE_ADDRESS (a bare host, e.g. a pod IP,
 * gets the gRPC port appended), else the bind host — a bind-all host is not dialable, so the
 * machine's name stands in for it.
 */
function advertisedAddress(config: WorkerConfig): string {
  const advertised = config.WORKER_ADVERTISE_ADDRESS;
  if (advertised) return withPort(advertised, config.WORKER_GRPC_PORT);
  return withPort(dialableHost(config.WORKER_HOST, hostname()), config.WORKER_GRPC_PORT);
}
