import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put } from '@nestjs/common';
import {
  createEndpointSchema,
  type EndpointView,
  setRoutesSchema,
  updateEndpointSchema,
} from '@modelgate/contracts';
import { parseInput, parseName } from '../admin-api/parse-body.js';
import { RequireRole } from '../auth/access.decorator.js';
import { RequestActor } from '../auth/principal.js';
import { type Actor } from '../outbox/actor.js';
import { EndpointsService } from './endpoints.service.js';

/** `/v1/endpoints`: endpoints and their canary routes. */
@Controller('v1/endpoints')
export class EndpointsController {
  constructor(private readonly endpoints: EndpointsService) {}

  @Post()
  @RequireRole('admin')
  @HttpCode(201)
  async create(@Body() body: unknown, @RequestActor() actor: Actor): Promise<EndpointView> {
    return this.endpoints.create(actor, parseInput(createEndpointSchema, body, 'endpoint'));
  }

  @Get()
  @RequireRole('viewer')
  async list(): Promise<EndpointView[]> {
    return this.endpoints.list();
  }

  @Get(':name')
  @RequireRole('viewer')
  async get(@Param('name') name: string): Promise<EndpointView> {
    return this.endpoints.get(parseName(name, 'endpoint name'));
  }

  @Patch(':name')
  @RequireRole('admin')
  async update(
    @Param('name') name: string,
    @Body() body: unknown,
    @RequestActor() actor: Actor,
  ): Promise<EndpointView> {
    return this.endpoints.update(
      actor,
      parseName(name, 'endpoint name'),
      parseInput(updateEndpointSchema, body, 'endpoint update'),
    );
  }

  @Delete(':name')
  @RequireRole('admin')
  @HttpCode(204)
  async remove(@Param('name') name: string, @RequestActor() actor: Actor): Promise<void> {
    await this.endpoints.remove(actor, parseName(name, 'endpoint name'));
  }

  @Put(':name/routes')
  @RequireRole('admin')
  async setRoutes(
    @Param('name') name: string,
    @Body() body: unknown,
    @RequestActor() actor: Actor,
  ): Promise<EndpointView> {
    const input = parseInput(setRoutesSchema, body, 'routes');
    return this.endpoints.setRoutes(actor, parseName(name, 'endpoint name'), input.routes);
  }
}
