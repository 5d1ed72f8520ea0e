import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { resourceNameSchema } from '@modelgate/contracts';
import { type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseInput } from '../admin-api/parse-body.js';
import { RequireRole } from '../auth/access.decorator.js';
import { actorOf, RequestActor } from '../auth/principal.js';
import { type Actor } from '../outbox/actor.js';
import { registerModelSchema, versionInputSchema } from './model-registration.schema.js';
import { ModelUploadService } from './model-upload.service.js';
import { type ModelView } from './model-view.js';
import { ModelsService } from './models.service.js';

const listQuerySchema = z.object({ name: resourceNameSchema.optional() });

/** `/v1/models`: register (by URI or upload), list, show, delete model versions. */
@Controller('v1/models')
export class ModelsController {
  constructor(
    private readonly models: ModelsService,
    private readonly uploads: ModelUploadService,
  ) {}

  /** 202: the model is PENDING; preparation decides READY or FAILED (poll GET). */
  @Post()
  @RequireRole('admin')
  @HttpCode(202)
  async register(@Body() body: unknown, @RequestActor() actor: Actor): Promise<ModelView> {
    return this.models.register(actor, parseInput(registerModelSchema, body, 'model registration'));
  }

  @Post('upload')
  @RequireRole('admin')
  @HttpCode(202)
  async upload(@Req() request: FastifyRequest): Promise<ModelView> {
    return this.uploads.upload(actorOf(request), request);
  }

  @Get()
  @RequireRole('viewer')
  async list(@Query() query: unknown): Promise<ModelView[]> {
    return this.models.list(parseInput(listQuerySchema, query, 'query').name);
  }

  @Get(':name/:version')
  @RequireRole('viewer')
  async get(@Param('name') name: string, @Param('version') version: string): Promise<ModelView> {
    return this.models.get(...modelKey(name, version));
  }

  @Delete(':name/:version')
  @RequireRole('admin')
  @HttpCode(204)
  async remove(
    @Param('name') name: string,
    @Param('version') version: string,
    @RequestActor() actor: Actor,
  ): Promise<void> {
    await this.models.remove(actor, ...modelKey(name, version));
  }
}

const modelKeySchema = z.object({ name: resourceNameSchema, version: versionInputSchema });

function modelKey(name: string, version: string): [string, number] {
  const key = parseInput(modelKeySchema, { name, version }, 'model path');
  return [key.name, key.version];
}
