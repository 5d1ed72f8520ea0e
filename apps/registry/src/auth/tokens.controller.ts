import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { type CreatedTokenView, createTokenSchema, type TokenView } from '@modelgate/contracts';
import { parseInput, parseName } from '../admin-api/parse-body.js';
import { type Actor } from '../outbox/actor.js';
import { RequireRole } from './access.decorator.js';
import { RequestActor } from './principal.js';
import { TokensService } from './tokens.service.js';

/** `/v1/tokens`: admin-only token management. */
@Controller('v1/tokens')
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  @Post()
  @RequireRole('admin')
  @HttpCode(201)
  async create(@Body() body: unknown, @RequestActor() actor: Actor): Promise<CreatedTokenView> {
    const input = parseInput(createTokenSchema, body, 'token');
    return this.tokens.create(actor, input.name, input.role);
  }

  @Get()
  @RequireRole('admin')
  async list(): Promise<TokenView[]> {
    return this.tokens.list();
  }

  @Delete(':name')
  @RequireRole('admin')
  async revoke(@Param('name') name: string, @RequestActor() actor: Actor): Promise<TokenView> {
    return this.tokens.revoke(actor, parseName(name, 'token name'));
  }
}
