import { Module } from '@nestjs/common';
import { HealthController } from './health/health.controller.js';
import { LivenessService } from './health/liveness.service.js';

@Module({
  controllers: [HealthController],
  providers: [LivenessService],
})
export class GatewayModule {}
