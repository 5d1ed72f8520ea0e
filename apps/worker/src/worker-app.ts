/**
 * One worker, started: the Nest app with its gRPC server (Open Inference Protocol), its HTTP
 * server (/metrics, /health/*), its config sync and heartbeat. main.ts runs it as its own process;
 * embedded.ts runs it inside a co-located gateway's process, which also reaches it in-process.
 */
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
import { type LocalWorkerEndpoint } from '@modelgate/inference-client';
import { type Logger, toNestLogger } from '@modelgate/observability';
import { type HeartbeatPublisher, withPort } from '@modelgate/config-sync';
import { ModelManager } from './model-loading/model-manager.js';
import { GenerationController } from './serving/generation.controller.js';
import { InferenceController } from './serving/inference.controller.js';
import { WORKER_PROTO_LOADER_OPTIONS, createLocalEndpoint } from './serving/local-endpoint.js';
import { type WorkerConfig } from './worker.config.js';
import { ADVERTISED_ADDRESS, HEARTBEAT, WorkerModule } from './worker.module.js';

/** Largest ModelInfer message accepted or sent (a batch of long sequences' hidden states). */
const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

/** A started worker. */
export interface RunningWorkerApp {
  /** The worker's in-process endpoint (what a co-located gateway calls instead of gRPC). */
  readonly endpoint: LocalWorkerEndpoint;
  /**
   * Drains and stops: readiness goes false at once, the heartbeat lists no models, queued and
   * running requests finish (up to WORKER_DRAIN_TIMEOUT_MS), the servers close, sessions are released.
   */
  stop(reason: string): Promise<void>;
}

/** Starts a worker for `config`; resolves once both servers listen (models load on their own). */
export async function startWorkerApp(config: WorkerConfig, logger: Logger): Promise<RunningWorkerApp> {
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
        loader: WORKER_PROTO_LOADER_OPTIONS,
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
  const endpoint = createLocalEndpoint({
    address: app.get<symbol, string>(ADVERTISED_ADDRESS),
    workerGroup: config.WORKER_GROUP,
    inference: app.get(InferenceController),
    generation: app.get(GenerationController),
    logger,
  });
  let stopping: Promise<void> | undefined;
  const stop = async (reason: string): Promise<void> => {
    logger.info({ reason, drainTimeoutMs: config.WORKER_DRAIN_TIMEOUT_MS }, 'draining before exit');
    // Readiness goes false at once; queued and running requests finish; new calls get UNAVAILABLE.
    const drain = models.drainAll(config.WORKER_DRAIN_TIMEOUT_MS);
    // The heartbeat now lists no models: gateways stop choosing this worker within a beat.
    await app.get<symbol, HeartbeatPublisher | undefined>(HEARTBEAT)?.beat();
    const drained = await drain;
    if (!drained) logger.warn('drain timeout passed; rejecting what is left');
    const closed = app.close().then(() => true);
    const closeTimeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5000).unref());
    if (!(await Promise.race([closed, closeTimeout])))
      logger.warn('servers did not close in 5 s; exiting anyway');
    await models.releaseAll();
    logger.info('worker stopped');
  };
  return {
    endpoint,
    stop: (reason) => (stopping ??= stop(reason)),
  };
}
