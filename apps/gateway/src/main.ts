import 'reflect-metadata';
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { serveApiDocs } from '@modelgate/api-docs';
import { createLogger, toNestLogger } from '@modelgate/observability';
import { InferenceClient, type LocalWorkerEndpoint } from '@modelgate/inference-client';
import { type GatewayConfig, gatewayEventLoops, loadGatewayConfig } from './gateway.config.js';
import { GatewayModule } from './gateway.module.js';
import { GatewayGrpcFace } from './grpc/gateway-grpc.js';
import { GrpcFaceHolder } from './grpc/grpc-face-holder.js';
import { type AsyncInference } from './async-jobs/async-inference.js';
import { EndpointTables } from './endpoints/endpoint-tables.service.js';
import { ASYNC_INFERENCE } from './gateway.tokens.js';
import {
  frameworkErrorOptions,
  installFastifyHooks,
  connectionTimeoutOptions,
  requestIdOptions,
} from './http/fastify-hooks.js';
import { HttpExceptionFilter } from './http/http-exception.filter.js';
import { GatewayLifecycle, installClosingConnectionHook } from './lifecycle/gateway-lifecycle.js';
import { shutDownOnSignals } from './lifecycle/termination-signals.js';
import { GatewayMetrics } from './metrics/gateway-metrics.js';
import { gatewayOpenApiDocument } from './openapi/gateway-openapi.js';
import { GenerationService } from './serving/generation/generation.service.js';
import { installServeRoutes } from './serving/serve-routes.js';
import { ServeService } from './serving/serve.service.js';
import { PodPrimary } from './pod/pod-primary.js';
import { PrimaryLink } from './pod/primary-link.js';

/** How long an event loop waits for its cluster primary's welcome or metrics, in ms. */
const PRIMARY_TIMEOUT_MS = 10_000;

/**
 * Starts one gateway event loop: a Nest app on Fastify listening on the shared port. In a cluster
 * it is welcomed by the primary first (pod/primary-link.ts): the primary follows the config,
 * heartbeats and aggregates metrics for the pod.
 */
async function serve(config: GatewayConfig): Promise<void> {
  const logger = createLogger({ app: 'gateway', level: config.GATEWAY_LOG_LEVEL });
  const local = config.GATEWAY_LOCAL_WORKER ? await startLocalWorker() : undefined;
  const primary = cluster.isWorker
    ? await PrimaryLink.connect({
        retryIntervalMs: config.GATEWAY_RECONCILE_INTERVAL_MS,
        timeoutMs: PRIMARY_TIMEOUT_MS,
        onError: (message, error) => logger.warn({ err: error }, message),
      })
    : undefined;
  const adapter = new FastifyAdapter({
    bodyLimit: config.GATEWAY_BODY_LIMIT_BYTES,
    ...connectionTimeoutOptions(config),
    ...requestIdOptions,
    ...frameworkErrorOptions(logger),
    // Fastify rejects path params over 100 chars otherwise; endpoint names are validated anyway.
    routerOptions: { maxParamLength: 200 },
  });
  installFastifyHooks(adapter.getInstance(), logger);
  const app = await NestFactory.create<NestFastifyApplication>(
    GatewayModule.forRoot(config, logger, primary, local?.endpoint),
    adapter,
    {
      logger: toNestLogger(logger),
      // Fastify's own JSON parser, not Nest's wrapper around the same parser (a buffer, a parser
      // and two closures per request); the onRequest hook refuses every other body type anyway.
      bodyParser: false,
    },
  );
  app.useGlobalFilters(new HttpExceptionFilter(logger));
  const lifecycle = app.get(GatewayLifecycle);
  installClosingConnectionHook(adapter.getInstance(), lifecycle);
  // The hot path, outside Nest's controller pipeline; its parts come from the Nest container.
  installServeRoutes(adapter.getInstance(), {
    service: app.get(ServeService),
    tables: app.get(EndpointTables),
    metrics: app.get(GatewayMetrics),
    asyncInference: app.get<symbol, AsyncInference | undefined>(ASYNC_INFERENCE),
    logger,
    generation: app.get(GenerationService),
    bodyLimit: config.GATEWAY_BODY_LIMIT_BYTES,
  });
  if (config.GATEWAY_DOCS) await serveApiDocs(adapter.getInstance(), gatewayOpenApiDocument());
  // Not Nest's enableShutdownHooks: it would close the listener at once (lifecycle/graceful-shutdown.ts).
  shutDownOnSignals(
    app,
    lifecycle,
    { delayMs: config.GATEWAY_SHUTDOWN_DELAY_MS, drainTimeoutMs: config.GATEWAY_DRAIN_TIMEOUT_MS },
    logger,
    cluster.isWorker ? 'ignore' : 'exit-now',
    // Once the HTTP server has answered its in-flight requests, the co-located worker drains too.
    local ? (signal) => local.stop(signal) : undefined,
  );
  if (primary) {
    primary.answerCollectionsFrom(app.get(GatewayMetrics).registry);
    // A loop forked while a snapshot is in force (a restart) takes connections once it applied it.
    await app.init();
    await primary.source.started;
  }
  await app.listen(config.GATEWAY_PORT, config.GATEWAY_HOST);
  logger.info({ port: config.GATEWAY_PORT, pid: process.pid }, 'gateway listening');
  if (config.GATEWAY_GRPC_PORT !== undefined) {
    const face = new GatewayGrpcFace({
      tables: app.get(EndpointTables),
      client: app.get(InferenceClient),
      serve: app.get(ServeService),
      generation: app.get(GenerationService),
      lifecycle,
      metrics: app.get(GatewayMetrics),
      logger,
    });
    app.get(GrpcFaceHolder).face = face;
    const port = await face.start(config.GATEWAY_HOST, config.GATEWAY_GRPC_PORT);
    logger.info({ grpcPort: port, pid: process.pid }, 'gateway gRPC face listening');
  }
}

/** What the gateway uses of the worker app's `@modelgate/worker/embedded` entry. */
interface EmbeddedWorkerModule {
  startEmbeddedWorker(): Promise<{ endpoint: LocalWorkerEndpoint; stop: (reason: string) => Promise<void> }>;
}

/** The worker app's embedding entry; a variable, so the gateway's build and image do not depend on it. */
const EMBEDDED_WORKER = '@modelgate/worker/embedded';

/**
 * The co-located worker (GATEWAY_LOCAL_WORKER): the worker app started in this process from its
 * own WORKER_* configuration. The only place the gateway reaches into the worker app, at run time
 * and only in this mode: the gateway image (no onnxruntime) refuses it, naming what is missing;
 * `npm start` and an install of both apps have it. The router sees only its in-process endpoint.
 */
async function startLocalWorker(): Promise<{
  endpoint: LocalWorkerEndpoint;
  stop: (reason: string) => Promise<void>;
}> {
  let embedded: EmbeddedWorkerModule;
  try {
    embedded = (await import(EMBEDDED_WORKER)) as EmbeddedWorkerModule;
  } catch (error) {
    throw new Error(
      `GATEWAY_LOCAL_WORKER=true needs the worker app (${EMBEDDED_WORKER}) and onnxruntime-node installed beside ` +
        'the gateway, as `npm start` and a full install have them (the gateway image has neither): ' +
        `${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  return embedded.startEmbeddedWorker();
}

const config = loadGatewayConfig();
const workers = gatewayEventLoops(config, availableParallelism());
// Forks one event loop per core (GATEWAY_WORKERS); they share the port through Node's cluster.
if (cluster.isPrimary && workers > 1) new PodPrimary(config, workers).start();
else await serve(config);
