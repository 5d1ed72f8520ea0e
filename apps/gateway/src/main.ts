import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadGatewayConfig } from './gateway.config.js';
import { GatewayModule } from './gateway.module.js';

async function bootstrap(): Promise<void> {
  const config = loadGatewayConfig();
  const app = await NestFactory.create<NestFastifyApplication>(GatewayModule, new FastifyAdapter());
  app.enableShutdownHooks();
  await app.listen(config.GATEWAY_PORT, config.GATEWAY_HOST);
}

await bootstrap();
