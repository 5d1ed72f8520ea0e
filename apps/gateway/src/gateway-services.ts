// The gateway's serving core for one configuration, built once per event loop: the worker client,
// the endpoint tables with their tokenizer store, readiness and metrics, and the serve and
// generation services every face (/serve, KServe v2, OpenAI, TEI, gRPC) calls. GatewayModule
// (gateway.module.ts) hands these to Nest as providers.
import { registryArtifactAccess } from '@modelgate/config-sync';
import { InferenceClient, type LocalWorkerEndpoint } from '@modelgate/inference-client';
import { ModelStore, readProxySettings } from '@modelgate/model-store';
import { type Logger } from '@modelgate/observability';
import { AsyncInference } from './async-jobs/async-inference.js';
import { EndpointTables } from './endpoints/endpoint-tables.service.js';
import { TokenizerLoader } from './endpoints/tokenizer-loader.js';
import { type GatewayConfig } from './gateway.config.js';
import { EndpointServabilityMonitor } from './health/endpoint-servability-monitor.js';
import { GatewayLifecycle } from './lifecycle/gateway-lifecycle.js';
import { GatewayMetrics } from './metrics/gateway-metrics.js';
import { type PrimaryLink } from './pod/primary-link.js';
import { ConcurrencyGate } from './serving/concurrency-gate.js';
import { GenerationService } from './serving/generation/generation.service.js';
import { generationCalls } from './serving/generation/serve-generation.js';
import { IMAGE_DECODE_CONCURRENCY } from './serving/image-input.js';
import { ServeService } from './serving/serve.service.js';
import { ShadowMirror } from './serving/shadow-mirror.js';

/** The serving core of one event loop. */
export interface GatewayServices {
  metrics: GatewayMetrics;
  client: InferenceClient;
  tables: EndpointTables;
  lifecycle: GatewayLifecycle;
  servability: EndpointServabilityMonitor;
  generation: GenerationService;
  serve: ServeService;
  /** Asynchronous jobs (BullMQ), with REDIS_URL. */
  asyncInference: AsyncInference | undefined;
}

/**
 * Builds the serving core. With `localWorker` (GATEWAY_LOCAL_WORKER) calls to that worker stay in
 * this process; with `primary` (an event loop of a cluster) the BullMQ consumer runs only where
 * the primary says.
 */
export function createGatewayServices(
  config: GatewayConfig,
  logger: Logger,
  primary?: PrimaryLink,
  localWorker?: LocalWorkerEndpoint,
): GatewayServices {
  const metrics = new GatewayMetrics();
  const store = new ModelStore({
    cacheDir: config.GATEWAY_CACHE_DIR,
    fileRoots: config.GATEWAY_ARTIFACT_ROOTS,
    allowHttp: config.GATEWAY_ALLOW_HTTP_ARTIFACTS,
    s3: { endpointUrl: config.S3_ENDPOINT_URL },
    proxy: readProxySettings(config),
    ...registryArtifactAccess(
      config.REGISTRY_URL,
      config.REGISTRY_TOKEN,
      config.GATEWAY_ARTIFACT_ALLOWED_HOSTS,
    ),
  });
  // Discovery from heartbeats takes precedence; a snapshot listing workerGroups beside these is refused (EndpointTables).
  const client = new InferenceClient({
    workerGroups: config.GATEWAY_WORKER_ADDRESSES,
    mergeCalls: config.GATEWAY_MERGE_CALLS,
    outlierEjection: { stallMs: config.GATEWAY_WORKER_STALL_MS },
    ...(localWorker ? { localWorker } : {}),
  });
  const tables = new EndpointTables(new TokenizerLoader(store), client, logger, {
    staticWorkerGroups: config.GATEWAY_WORKER_ADDRESSES.length > 0,
  });
  const servability = new EndpointServabilityMonitor(tables, client);
  metrics.reportEndpointReadiness(() => servability.fresh());
  metrics.reportConfigRevision(() => tables.applied);
  const shadows = new ShadowMirror(metrics);
  // One bound on image decodes for the whole process: classification and captioning share it.
  const imageDecodes = new ConcurrencyGate(IMAGE_DECODE_CONCURRENCY);
  const generation = new GenerationService(tables, client, metrics, shadows, imageDecodes);
  const serve = new ServeService(
    tables,
    client,
    metrics,
    shadows,
    generationCalls(generation, metrics),
    imageDecodes,
  );
  const asyncInference = config.REDIS_URL
    ? new AsyncInference(
        serve,
        {
          redisUrl: config.REDIS_URL,
          keyPrefix: config.REDIS_KEY_PREFIX,
          resultTtlSeconds: config.GATEWAY_ASYNC_RESULT_TTL_SECONDS,
          concurrency: config.GATEWAY_ASYNC_CONCURRENCY,
          consume: primary?.duties.asyncConsumer ?? true,
        },
        logger,
      )
    : undefined;
  return {
    metrics,
    client,
    tables,
    lifecycle: new GatewayLifecycle(),
    servability,
    generation,
    serve,
    asyncInference,
  };
}
