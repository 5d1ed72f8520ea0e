import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type FastifyRequest } from 'fastify';
import { ROUTE_ACCESS, type RouteAccess } from './access.decorator.js';
import { tokenFromAuthorization } from './token-secret.js';
import { TokensService } from './tokens.service.js';

/**
 * The global guard: 401 without a valid, unrevoked token; 403 when a viewer calls an admin
 * route. A route without an access rule is refused (fails closed), so forgetting the decorator
 * cannot open a route.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokensService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.reflector.getAllAndOverride<RouteAccess | undefined>(ROUTE_ACCESS, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (access === undefined) {
      throw new ModelgateError(ErrorCode.INTERNAL, 'route has no access rule');
    }
    if (access.kind === 'public') return true;

    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const token = tokenFromAuthorization(request.headers.authorization);
    if (token === undefined) {
      throw new ModelgateError(
        ErrorCode.UNAUTHENTICATED,
        'missing token: send "Authorization: Bearer <token>"',
      );
    }
    const principal = await this.tokens.authenticate(token);
    if (principal === undefined) {
      throw new ModelgateError(ErrorCode.UNAUTHENTICATED, 'invalid or revoked token');
    }
    if (access.role === 'admin' && principal.role !== 'admin') {
      throw new ModelgateError(
        ErrorCode.PERMISSION_DENIED,
        `token '${principal.tokenName}' has role ${principal.role}; this action needs an admin token`,
      );
    }
    request.principal = principal;
    return true;
  }
}
