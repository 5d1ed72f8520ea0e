import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import {
  listModelsQuerySchema,
  modelKeySchema,
  type ModelView,
  registerModelSchema,
} from '@modelgate/contracts';
import { type FastifyRequest } from 'fastify';
import { parseInput } from '../admin-api/parse-body.js';
import { RequireRole } from '../auth/access.decorator.js';
import { actorOf, RequestActor } from '../auth/principal.js';
import { type Actor } from '../outbox/actor.js';
import { ModelUploadService } from './model-upload.service.js';
import { ModelsService } from './models.service.js';

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
    return this.models.list(parseInput(listModelsQuerySchema, query, 'query').name);
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

function modelKey(name: string, version: string): [string, number] {
  const key = parseInput(modelKeySchema, { name, version }, 'model path');
  return [key.name, key.version];
}
