import { Controller, Get } from '@nestjs/common';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { DataSource } from 'typeorm';
import { PublicRoute } from '../auth/access.decorator.js';

/** Kubernetes probes: live = the process answers; ready = Postgres answers too. */
@Controller('health')
export class HealthController {
  constructor(private readonly dataSource: DataSource) {}

  @Get('live')
  @PublicRoute()
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @PublicRoute()
  async ready(): Promise<{ status: 'ok' }> {
    try {
      await this.dataSource.query('SELECT 1');
    } catch (error) {
      throw new ModelgateError(ErrorCode.UNAVAILABLE, 'database unreachable', {}, { cause: error });
    }
    return { status: 'ok' };
  }
}
