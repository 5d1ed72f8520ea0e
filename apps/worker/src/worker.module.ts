import { type DynamicModule, Inject, Injectable, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { ModelStore } from '@modelgate/model-store';
import { type Logger } from '@modelgate/observability';
import { type ConfigSource, EmptyConfigSource, FileConfigSource } from '@modelgate/config-sync';
import { GrpcHealthController } from './health/grpc-health.controller.js';
import { HttpProbesController } from './health/http-probes.controller.js';
import { WorkerMetrics } from './metrics/worker-metrics.js';
import { ModelManager } from './model-loading/model-manager.js';
import { InferenceController } from './serving/inference.controller.js';
import { type WorkerConfig } from './worker.config.js';
import { CONFIG_SOURCE, LOGGER, WORKER_CONFIG } from './worker.tokens.js';

/** Feeds snapshots from the config source to the model manager once the servers are up. */
@Injectable()
export class SnapshotApplier implements OnApplicationBootstrap {
  constructor(
    @Inject(CONFIG_SOURCE) private readonly source: ConfigSource,
    private readonly models: ModelManager,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    // Not awaited: the servers answer (not ready) while models load.
    this.source
      .start(async (snapshot) => {
        this.logger.info(
          { revision: snapshot.revision, models: snapshot.models.length },
          'applying config snapshot',
        );
        await this.models.applySnapshot(snapshot);
        this.logger.info(
          { revision: snapshot.revision, states: this.models.states() },
          'config snapshot applied',
        );
      })
      .catch((error: unknown) => this.logger.error({ err: error }, 'config source failed'));
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
      allowedHosts: config.WORKER_ARTIFACT_ALLOWED_HOSTS,
    });
    const models = new ModelManager({
      workerGroup: config.WORKER_GROUP,
      gpu: {
        deviceId: config.WORKER_CUDA_DEVICE_ID,
        tensorrtCacheDir: config.WORKER_TENSORRT_CACHE_DIR,
        tensorrtFp16: config.WORKER_TENSORRT_FP16,
        cudaMemoryLimitBytes: config.WORKER_CUDA_MEMORY_LIMIT_BYTES,
      },
      fetcher: store,
      metrics,
      logger,
    });
    const source: ConfigSource = config.WORKER_CONFIG_FILE
      ? new FileConfigSource(config.WORKER_CONFIG_FILE)
      : new EmptyConfigSource();
    return {
      module: WorkerModule,
      controllers: [InferenceController, GrpcHealthController, HttpProbesController],
      providers: [
        { provide: WORKER_CONFIG, useValue: config },
        { provide: LOGGER, useValue: logger },
        { provide: WorkerMetrics, useValue: metrics },
        { provide: ModelManager, useValue: models },
        { provide: CONFIG_SOURCE, useValue: source },
        SnapshotApplier,
      ],
    };
  }
}
