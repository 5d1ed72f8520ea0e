import { Controller, Get } from '@nestjs/common';
import { type FleetStatusView } from '@modelgate/contracts';
import { RequireRole } from '../auth/access.decorator.js';
import { RolloutsService } from '../rollouts/rollouts.service.js';
import { FleetStatusService } from './fleet-status.service.js';

/**
 * `GET /v1/status`: the latest config revision, every live node's applied revision, lag and model
 * states, and the rollouts in progress.
 */
@Controller('v1/status')
export class StatusController {
  constructor(
    private readonly fleet: FleetStatusService,
    private readonly rollouts: RolloutsService,
  ) {}

  @Get()
  @RequireRole('viewer')
  async status(): Promise<FleetStatusView> {
    const [fleet, rollouts] = await Promise.all([this.fleet.current(), this.rollouts.active()]);
    return { ...fleet, rollouts };
  }
}
