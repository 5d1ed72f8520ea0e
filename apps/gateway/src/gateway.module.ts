import {
  type DynamicModule,
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleDestroy,
} from '@nestjs/common';
import { type ConfigSource, type NodeReport, HeartbeatReader } from '@modelgate/config-sync';
import { InferenceClient, type LocalWorkerEndpoint } from '@modelgate/inference-client';
import { type Logger } from '@modelgate/observability';
import { EndpointTables } from './endpoints/endpoint-tables.service.js';
import { WorkerDiscovery } from './endpoints/worker-discovery.js';
import { type GatewayConfig } from './gateway.config.js';
import { ASYNC_INFERENCE, CONFIG_SOURCE, GATEWAY_CONFIG, LOGGER, METRICS_TEXT } from './gateway.tokens.js';
import { AsyncInference } from './async-jobs/async-inference.js';
import { JobsController } from './async-jobs/jobs.controller.js';
import { EndpointServabilityMonitor } from './health/endpoint-servability-monitor.js';
import { HealthController } from './health/health.controller.js';
import { GatewayLifecycle } from './lifecycle/gateway-lifecycle.js';
import { V2GenerateController } from './kserve/v2-generate.controller.js';
import { V2InferController } from './kserve/v2-infer.controller.js';
import { V2RestController } from './kserve/v2-rest.controller.js';
import { GatewayMetrics } from './metrics/gateway-metrics.js';
import { ChatCompletionsController } from './openai/chat-completions.controller.js';
import { CompletionsController } from './openai/completions.controller.js';
import { OpenAiGenerationRunner } from './openai/openai-generation.js';
import { EmbeddingsController } from './openai/embeddings.controller.js';
import { ModelsController } from './openai/models.controller.js';
import { TeiController } from './tei/tei.controller.js';
import { GrpcFaceHolder } from './grpc/grpc-face-holder.js';
import { GenerationService } from './serving/generation/generation.service.js';
import { ServeService } from './serving/serve.service.js';
import {
  type Heartbeat,
  createGatewayConfigSource,
  createGatewayHeartbeat,
  gatewayIdentity,
  heartbeatIntervalMs,
  heartbeatsEnabled,
} from './pod/node-sync.js';
import { type PrimaryLink } from './pod/primary-link.js';
import { createGatewayServices } from './gateway-services.js';

/**
 * Live-sync parts: discovery (with Redis) and this gateway's heartbeat (with Redis or a registry),
 * which an event loop of a cluster sends to its primary instead (pod/pod-report.ts).
 */
export const LIVE_SYNC = Symbol('LIVE_SYNC');

/** How long a new revision waits for the heartbeats to be read before its routes go live, ms. */
const DISCOVERY_BEFORE_APPLY_MS = 1000;
interface LiveSync {
  discovery?: WorkerDiscovery;
  heartbeat?: Heartbeat;
}

/**
 * Feeds snapshots to the endpoint tables once the server is up, runs discovery and the
 * heartbeat, and closes worker channels at the end: after the HTTP server has closed and its
 * in-flight requests were answered (Nest closes the server between the two hooks).
 */
@Injectable()
export class SnapshotApplier implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  constructor(
    @Inject(CONFIG_SOURCE) private readonly source: ConfigSource,
    @Inject(EndpointTables) private readonly tables: EndpointTables,
    @Inject(EndpointServabilityMonitor) private readonly servability: EndpointServabilityMonitor,
    @Inject(InferenceClient) private readonly client: InferenceClient,
    @Inject(LIVE_SYNC) private readonly live: LiveSync,
    @Inject(ASYNC_INFERENCE) private readonly asyncInference: AsyncInference | undefined,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.live.discovery?.start();
    this.live.heartbeat?.start();
    this.source
      .start(async (snapshot) => {
        // Workers of a version just routed to announced it before the route was made: read them first.
        await this.live.discovery?.refreshWithin(DISCOVERY_BEFORE_APPLY_MS);
        await this.tables.apply(snapshot);
        this.asyncInference?.startConsuming();
        if (this.live.heartbeat) {
          await this.servability.fresh(); // the beat reports the new table's endpoints
          await this.live.heartbeat.beat();
        }
      })
      .catch((error: unknown) => this.logger.error({ err: error }, 'config source failed'));
  }

  /** Before the server closes: no more config changes or heartbeats; requests are still served. */
  async onModuleDestroy(): Promise<void> {
    await this.source.stop();
    this.live.discovery?.stop();
    await this.live.heartbeat?.stop();
  }

  /** After the server closed: async jobs finish, then worker channels close once their calls end. */
  async onApplicationShutdown(): Promise<void> {
    await this.asyncInference?.close();
    await this.client.close();
  }
}

/** The gateway's Nest controllers (openapi/gateway-openapi.spec.ts checks each route is documented). */
export const GATEWAY_CONTROLLERS = [
  V2InferController,
  V2GenerateController,
  V2RestController,
  EmbeddingsController,
  CompletionsController,
  ChatCompletionsController,
  ModelsController,
  TeiController,
  JobsController,
  HealthController,
];

@Module({})
export class GatewayModule {
  /**
   * The gateway's module for one configuration. With `primary` (an event loop of a cluster) the
   * config comes from the primary, the heartbeat goes to it, /metrics is the pod's aggregate, and
   * the BullMQ consumer runs only where the primary says; without, this process does all of it.
   * With `localWorker` (GATEWAY_LOCAL_WORKER) calls to that worker stay in this process.
   */
  static forRoot(
    config: GatewayConfig,
    logger: Logger,
    primary?: PrimaryLink,
    localWorker?: LocalWorkerEndpoint,
  ): DynamicModule {
    const services = createGatewayServices(config, logger, primary, localWorker);
    const { metrics, client, tables, lifecycle, servability, generation, serve, asyncInference } = services;
    const onError = (message: string, error: unknown): void => logger.warn({ err: error }, message);
    const source: ConfigSource = primary?.source ?? createGatewayConfigSource(config, onError);
    const describe = (): NodeReport => ({
      role: 'gateway',
      ...gatewayIdentity(config),
      // Applied once every model of the revision is servable or given up on.
      revision: tables.applied ?? null,
      models: {},
      reasons: Object.fromEntries(tables.current?.unservable ?? []),
      endpoints: Object.fromEntries(servability.latest()),
      traffic: metrics.traffic.report(), // rollouts judge candidates by these counters
    });
    const heartbeat = primary
      ? heartbeatsEnabled(config)
        ? primary.reporter(describe, heartbeatIntervalMs(config))
        : undefined
      : createGatewayHeartbeat(config, describe, onError);
    const live: LiveSync = {
      ...(config.REDIS_URL === undefined
        ? {}
        : {
            discovery: new WorkerDiscovery(
              new HeartbeatReader(config.REDIS_URL, config.REDIS_KEY_PREFIX),
              client,
              config.GATEWAY_DISCOVERY_INTERVAL_MS,
              logger,
            ),
          }),
      ...(heartbeat === undefined ? {} : { heartbeat }),
    };
    return {
      module: GatewayModule,
      // POST /serve/* is not here: plain Fastify routes serve it (serving/serve-routes.ts).
      controllers: GATEWAY_CONTROLLERS,
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        { provide: LOGGER, useValue: logger },
        { provide: CONFIG_SOURCE, useValue: source },
        { provide: LIVE_SYNC, useValue: live },
        { provide: GatewayMetrics, useValue: metrics },
        {
          provide: METRICS_TEXT,
          useValue: primary ? () => primary.metricsText() : () => metrics.registry.metrics(),
        },
        { provide: InferenceClient, useValue: client },
        { provide: EndpointTables, useValue: tables },
        { provide: EndpointServabilityMonitor, useValue: servability },
        { provide: GatewayLifecycle, useValue: lifecycle },
        { provide: ServeService, useValue: serve },
        { provide: GenerationService, useValue: generation },
        {
          provide: OpenAiGenerationRunner,
          useValue: new OpenAiGenerationRunner(generation, tables, metrics, logger),
        },
        { provide: ASYNC_INFERENCE, useValue: asyncInference },
        SnapshotApplier,
        GrpcFaceHolder,
      ],
    };
  }
}
