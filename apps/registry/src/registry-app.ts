import { type IncomingMessage } from 'node:http';
import multipart from '@fastify/multipart';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { serveApiDocs } from '@modelgate/api-docs';
import { type Logger, resolveRequestId, toNestLogger } from '@modelgate/observability';
import { runMigrations } from './database/migration-runner.js';
import { installUndeclaredInputCheck } from './admin-api/undeclared-input-check.js';
import { registryOpenApiDocument, registryRoutes } from './openapi/registry-openapi.js';
import { type RegistryConfig } from './registry.config.js';
import { RegistryModule } from './registry.module.js';

/** Largest JSON body of an admin call; model files go through the multipart upload instead. */
const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * The registry's Nest application, configured but not listening: Fastify with request ids
 * (a safe client `x-request-id` is kept, otherwise one is made, and either is echoed), JSON and
 * multipart bodies only (anything else is 415), and pending migrations applied first when
 * REGISTRY_MIGRATE_ON_START is set; Swagger UI at `/docs`. `main.ts` and the tests share it.
 */
export async function createRegistryApp(
  config: RegistryConfig,
  logger: Logger,
): Promise<NestFastifyApplication> {
  if (config.REGISTRY_MIGRATE_ON_START) {
    const outcome = await runMigrations(config, 'up');
    if (outcome.applied.length > 0) logger.info({ applied: outcome.applied }, 'migrations applied');
  }
  const adapter = new FastifyAdapter({
    genReqId: (request: IncomingMessage) => resolveRequestId(request.headers['x-request-id']),
    requestIdHeader: false,
    bodyLimit: JSON_BODY_LIMIT_BYTES,
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    RegistryModule.forRoot(config, logger),
    adapter,
    {
      logger: toNestLogger(logger),
      // Fastify's own JSON parser; Nest's would add urlencoded bodies, which no route takes.
      bodyParser: false,
    },
  );
  await app.register(multipart, {
    limits: {
      // One byte over, so the upload's own meter sees the excess and refuses the file: a
      // stream busboy cut at exactly the limit would look complete.
      fileSize: config.REGISTRY_ARTIFACT_MAX_BYTES + 1,
      files: 8,
      fields: 32,
      fieldSize: JSON_BODY_LIMIT_BYTES,
    },
  });
  const fastify = app.getHttpAdapter().getInstance();
  fastify.removeContentTypeParser('text/plain');
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  installUndeclaredInputCheck(fastify, registryRoutes);
  await serveApiDocs(fastify, registryOpenApiDocument());
  return app;
}
