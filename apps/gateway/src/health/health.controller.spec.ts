import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { describe, expect, it } from 'vitest';
import { GatewayModule } from '../gateway.module.js';
import { HealthController } from './health.controller.js';

describe('HealthController', () => {
  it('gets its service injected by Nest DI under Vitest (decorator metadata is emitted)', async () => {
    const app = await NestFactory.createApplicationContext(GatewayModule, { logger: false });
    try {
      const controller = app.get(HealthController);
      const body = controller.live();
      expect(body.status).toBe('ok');
      expect(body.uptime_seconds).toBeGreaterThanOrEqual(0);
    } finally {
      await app.close();
    }
  });
});
