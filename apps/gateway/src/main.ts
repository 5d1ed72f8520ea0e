import 'reflect-metadata';
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { MODELGATE_VERSION } from '@modelgate/contracts';
import { createLogger, toNestLogger } from '@modelgate/observability';
import { type GatewayConfig, loadGatewayConfig } from './gateway.config.js';
import { GatewayModule } from './gateway.module.js';
import { type AsyncInference } from './async-jobs/async-inference.js';
import { EndpointTables } from './endpoints/endpoint-tables.service.js';
import { ASYNC_INFERENCE } from './gateway.tokens.js';
import { installFastifyHooks, requestIdOptions } from './http/fastify-hooks.js';
import { HttpExceptionFilter } from './http/http-exception.filter.js';
import { GatewayLifecycle, installClosingConnectionHook } from './lifecycle/gateway-lifecycle.js';
import { shutDownOnSignals } from './lifecycle/termination-signals.js';
import { GatewayMetrics } from './metrics/gateway-metrics.js';
import { addServeRoutesToDocument } from './serving/serve-routes.openapi.js';
import { installServeRoutes } from './serving/serve-routes.js';
import { ServeService } from './serving/serve.service.js';

/** Starts one gateway event loop: a Nest app on Fastify listening on the shared port. */
async function serve(config: GatewayConfig): Promise<void> {
  const logger = createLogger({ app: 'gateway', level: config.GATEWAY_LOG_LEVEL });
  const adapter = new FastifyAdapter({
    bodyLimit: config.GATEWAY_BODY_LIMIT_BYTES,
    ...requestIdOptions,
    // Fastify rejects path params over 100 chars otherwise; endpoint names are validated anyway.
    routerOptions: { maxParamLength: 200 },
  });
  installFastifyHooks(adapter.getInstance(), logger);
  const app = await NestFactory.create<NestFastifyApplication>(
    GatewayModule.forRoot(config, logger),
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
  });
  if (config.GATEWAY_DOCS) {
    const document = SwaggerModule.createDocument(
      app,
      new DocumentBuilder()
        .setTitle('modelgate gateway')
        .setDescription('POST /serve/<endpoint> with raw text; KServe v2 REST for raw tensors.')
        .setVersion(MODELGATE_VERSION)
        .build(),
    );
    SwaggerModule.setup('docs', app, addServeRoutesToDocument(document));
  }
  // Not Nest's enableShutdownHooks: it would close the listener at once (lifecycle/graceful-shutdown.ts).
  shutDownOnSignals(
    app,
    lifecycle,
    { delayMs: config.GATEWAY_SHUTDOWN_DELAY_MS, drainTimeoutMs: config.GATEWAY_DRAIN_TIMEOUT_MS },
    logger,
    cluster.isWorker ? 'ignore' : 'exit-now',
  );
  await app.listen(config.GATEWAY_PORT, config.GATEWAY_HOST);
  logger.info({ port: config.GATEWAY_PORT, pid: process.pid }, 'gateway listening');
}

/**
 * Forks one event loop per core (GATEWAY_WORKERS); they share the port through Node's cluster.
 * A termination signal is forwarded to every loop, each of which shuts down gracefully on its own
 * (not ready, keep serving for the delay, stop accepting, drain); the primary exits once all have.
 * A second signal kills the loops at once.
 */
function superviseWorkers(count: number): void {
  for (let i = 0; i < count; i++) cluster.fork();
  let stopping = false;
  cluster.on('exit', (worker, code) => {
    if (!stopping) {
      process.stderr.write(`gateway worker ${worker.process.pid} exited (${code}); restarting\n`);
      cluster.fork();
    } else if (Object.keys(cluster.workers ?? {}).length === 0) {
      process.exit(0);
    }
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      const forwarded = stopping ? 'SIGKILL' : signal;
      stopping = true;
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(forwarded);
    });
  }
}

const config = loadGatewayConfig();
const workers = config.GATEWAY_WORKERS === 'auto' ? availableParallelism() : config.GATEWAY_WORKERS;
if (cluster.isPrimary && workers > 1) superviseWorkers(workers);
else await serve(config);
