import { Controller, Get } from '@nestjs/common';
import { LivenessService } from './liveness.service.js';

@Controller('health')
export class HealthController {
  constructor(private readonly liveness: LivenessService) {}

  @Get('live')
  live(): { status: 'ok'; uptime_seconds: number } {
    return { status: 'ok', uptime_seconds: this.liveness.uptimeSeconds() };
  }
}
