import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { type MicroserviceOptions, Transport } from '@nestjs/microservices';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  HEALTH_PROTO_PACKAGE,
  HEALTH_PROTO_PATH,
  INFERENCE_PROTO_PACKAGE,
  INFERENCE_PROTO_PATH,
} from '@modelgate/contracts';
import { createLogger, toNestLogger } from '@modelgate/observability';
import { type HeartbeatPublisher, withPort } from '@modelgate/config-sync';
import { ModelManager } from './model-loading/model-manager.js';
import { loadWorkerConfig } from './worker.config.js';
import { HEARTBEAT, WorkerModule } from './worker.module.js';

/** Largest ModelInfer message accepted or sent (a batch of long sequences' hidden states). */
const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

async function bootstrap(): Promise<void> {
  const config = loadWorkerConfig();
  const logger = createLogger({ app: 'worker', level: config.WORKER_LOG_LEVEL });
  const app = await NestFactory.create<NestFastifyApplication>(
    WorkerModule.forRoot(config, logger),
    new FastifyAdapter(),
    { logger: toNestLogger(logger) },
  );
  // An IPv6 host is bracketed: '::' bound as ':::8001' read as a DNS name, and the worker never started.
  const grpcUrl = withPort(config.WORKER_HOST, config.WORKER_GRPC_PORT);
  app.connectMicroservice<MicroserviceOptions>(
    {
      transport: Transport.GRPC,
      options: {
        package: [INFERENCE_PROTO_PACKAGE, HEALTH_PROTO_PACKAGE],
        protoPath: [INFERENCE_PROTO_PATH, HEALTH_PROTO_PATH],
        url: grpcUrl,
        // tryShutdown: calls already answered by the batcher get their responses written.
        gracefulShutdown: true,
        maxReceiveMessageLength: MAX_MESSAGE_BYTES,
        maxSendMessageLength: MAX_MESSAGE_BYTES,
        loader: { keepCase: true, longs: String, enums: String, defaults: false, arrays: true, oneofs: true },
      },
    },
    { inheritAppConfig: false },
  );
  await app.startAllMicroservices();
  await app.listen(config.WORKER_HTTP_PORT, config.WORKER_HOST);
  logger.info(
    { grpc: grpcUrl, http: config.WORKER_HTTP_PORT, group: config.WORKER_GROUP },
    'worker listening',
  );

  const models = app.get(ModelManager);
  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, drainTimeoutMs: config.WORKER_DRAIN_TIMEOUT_MS }, 'draining before exit');
    // Readiness goes false at once; queued and running requests finish; new calls get UNAVAILABLE.
    const drain = models.drainAll(config.WORKER_DRAIN_TIMEOUT_MS);
    // The heartbeat now lists no models: gateways stop choosing this worker within a beat.
    await app.get<HeartbeatPublisher | undefined>(HEARTBEAT)?.beat();
    const drained = await drain;
    if (!drained) logger.warn('drain timeout passed; rejecting what is left');
    const closed = app.close().then(() => true);
    const closeTimeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5000).unref());
    if (!(await Promise.race([closed, closeTimeout])))
      logger.warn('servers did not close in 5 s; exiting anyway');
    await models.releaseAll();
    logger.info('worker stopped');
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => void shutdown(signal));
  }
}

await bootstrap();
