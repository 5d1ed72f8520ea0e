import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { type RolloutView, startRolloutSchema } from '@modelgate/contracts';
import { parseInput, parseName } from '../admin-api/parse-body.js';
import { RequireRole } from '../auth/access.decorator.js';
import { RequestActor } from '../auth/principal.js';
import { type Actor } from '../outbox/actor.js';
import { RolloutsService } from './rollouts.service.js';

/** `/v1/endpoints/:name/rollout(s)`: progressive rollouts, judged window by window. */
@Controller('v1/endpoints')
export class RolloutsController {
  constructor(private readonly rollouts: RolloutsService) {}

  /** Starts a rollout; 409 when one is in progress, 503 without Redis. */
  @Post(':name/rollouts')
  @RequireRole('admin')
  @HttpCode(201)
  async start(
    @Param('name') name: string,
    @Body() body: unknown,
    @RequestActor() actor: Actor,
  ): Promise<RolloutView> {
    return this.rollouts.start(
      actor,
      parseName(name, 'endpoint name'),
      parseInput(startRolloutSchema, body, 'rollout'),
    );
  }

  /** The endpoint's latest rollout: state, step, the running window against the thresholds, history. */
  @Get(':name/rollout')
  @RequireRole('viewer')
  async get(@Param('name') name: string): Promise<RolloutView> {
    return this.rollouts.get(parseName(name, 'endpoint name'));
  }

  @Post(':name/rollout/pause')
  @RequireRole('admin')
  @HttpCode(200)
  async pause(@Param('name') name: string, @RequestActor() actor: Actor): Promise<RolloutView> {
    return this.rollouts.pause(actor, parseName(name, 'endpoint name'));
  }

  @Post(':name/rollout/resume')
  @RequireRole('admin')
  @HttpCode(200)
  async resume(@Param('name') name: string, @RequestActor() actor: Actor): Promise<RolloutView> {
    return this.rollouts.resume(actor, parseName(name, 'endpoint name'));
  }

  @Post(':name/rollout/abort')
  @RequireRole('admin')
  @HttpCode(200)
  async abort(@Param('name') name: string, @RequestActor() actor: Actor): Promise<RolloutView> {
    return this.rollouts.abort(actor, parseName(name, 'endpoint name'));
  }

  @Post(':name/rollout/promote')
  @RequireRole('admin')
  @HttpCode(200)
  async promote(@Param('name') name: string, @RequestActor() actor: Actor): Promise<RolloutView> {
    return this.rollouts.promote(actor, parseName(name, 'endpoint name'));
  }
}
