import {
  type DynamicModule,
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { type ConfigSource, EmptyConfigSource, FileConfigSource } from '@modelgate/config-sync';
import { InferenceClient } from '@modelgate/inference-client';
import { ModelStore } from '@modelgate/model-store';
import { type Logger } from '@modelgate/observability';
import { EndpointTables } from './endpoints/endpoint-tables.service.js';
import { TokenizerLoader } from './endpoints/tokenizer-loader.js';
import { type GatewayConfig } from './gateway.config.js';
import { CONFIG_SOURCE, GATEWAY_CONFIG, LOGGER, SERVE_DEFAULTS } from './gateway.tokens.js';
import { HealthController } from './health/health.controller.js';
import { V2InferController } from './kserve/v2-infer.controller.js';
import { GatewayMetrics } from './metrics/gateway-metrics.js';
import { ServeService } from './serving/serve.service.js';
import { ServingController } from './serving/serving.controller.js';

/** Feeds snapshots to the endpoint tables once the server is up; closes worker channels at the end. */
@Injectable()
export class SnapshotApplier implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(
    @Inject(CONFIG_SOURCE) private readonly source: ConfigSource,
    @Inject(EndpointTables) private readonly tables: EndpointTables,
    @Inject(InferenceClient) private readonly client: InferenceClient,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.source
      .start((snapshot) => this.tables.apply(snapshot))
      .catch((error: unknown) => this.logger.error({ err: error }, 'config source failed'));
  }

  async onModuleDestroy(): Promise<void> {
    await this.source.stop();
    await this.client.close();
  }
}

@Module({})
export class GatewayModule {
  /** The gateway's module for one configuration. */
  static forRoot(config: GatewayConfig, logger: Logger): DynamicModule {
    const metrics = new GatewayMetrics();
    const store = new ModelStore({
      cacheDir: config.GATEWAY_CACHE_DIR,
      fileRoots: config.GATEWAY_ARTIFACT_ROOTS,
      allowHttp: config.GATEWAY_ALLOW_HTTP_ARTIFACTS,
      allowedHosts: config.GATEWAY_ARTIFACT_ALLOWED_HOSTS,
    });
    const client = new InferenceClient();
    const tables = new EndpointTables(new TokenizerLoader(store), client, logger);
    const defaults = { timeoutMs: config.GATEWAY_DEFAULT_TIMEOUT_MS };
    const source: ConfigSource = config.GATEWAY_CONFIG_FILE
      ? new FileConfigSource(config.GATEWAY_CONFIG_FILE)
      : new EmptyConfigSource();
    return {
      module: GatewayModule,
      controllers: [ServingController, V2InferController, HealthController],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        { provide: LOGGER, useValue: logger },
        { provide: SERVE_DEFAULTS, useValue: defaults },
        { provide: CONFIG_SOURCE, useValue: source },
        { provide: GatewayMetrics, useValue: metrics },
        { provide: InferenceClient, useValue: client },
        { provide: EndpointTables, useValue: tables },
        { provide: ServeService, useValue: new ServeService(tables, client, metrics, defaults) },
        SnapshotApplier,
      ],
    };
  }
}
