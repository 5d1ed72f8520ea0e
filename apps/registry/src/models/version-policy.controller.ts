import { Body, Controller, Delete, Get, Param, Put } from '@nestjs/common';
import { versionPolicySchema, type VersionPolicyView } from '@modelgate/contracts';
import { parseInput, parseName } from '../admin-api/parse-body.js';
import { RequireRole } from '../auth/access.decorator.js';
import { RequestActor } from '../auth/principal.js';
import { type Actor } from '../outbox/actor.js';
import { VersionPolicyService } from './version-policy.service.js';

/**
 * `/v1/models/:name/version-policy`: which READY versions of a model workers load besides the
 * routed ones — `{"kind":"all"}`, `{"kind":"latest","count":N}` or `{"kind":"specific","versions":[...]}`;
 * DELETE goes back to the default, latest 1.
 */
@Controller('v1/models/:name/version-policy')
export class VersionPolicyController {
  constructor(private readonly policies: VersionPolicyService) {}

  @Get()
  @RequireRole('viewer')
  async get(@Param('name') name: string): Promise<VersionPolicyView> {
    return this.policies.get(parseName(name, 'model name'));
  }

  @Put()
  @RequireRole('admin')
  async set(
    @Param('name') name: string,
    @Body() body: unknown,
    @RequestActor() actor: Actor,
  ): Promise<VersionPolicyView> {
    const model = parseName(name, 'model name');
    return this.policies.set(actor, model, parseInput(versionPolicySchema, body, 'version policy'));
  }

  @Delete()
  @RequireRole('admin')
  async reset(@Param('name') name: string, @RequestActor() actor: Actor): Promise<VersionPolicyView> {
    return this.policies.reset(actor, parseName(name, 'model name'));
  }
}
