import { Controller, Get } from '@nestjs/common';
import { RequireRole } from '../auth/access.decorator.js';
import { type FleetStatus } from './fleet-status.js';
import { FleetStatusService } from './fleet-status.service.js';

/** `GET /v1/status`: the latest config revision and every live node's applied revision, lag and model states. */
@Controller('v1/status')
export class StatusController {
  constructor(private readonly fleet: FleetStatusService) {}

  @Get()
  @RequireRole('viewer')
  async status(): Promise<FleetStatus> {
    return this.fleet.current();
  }
}
