import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { type FastifyRequest } from 'fastify';
import { type Actor } from '../outbox/actor.js';
import { type TokenRole } from '@modelgate/contracts';

/** The authenticated caller of a request. */
export interface Principal {
  tokenName: string;
  role: TokenRole;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the AuthGuard on routes that need a token. */
    principal?: Principal;
  }
}

/** The actor an API request changes things as: `token:<name>`, with the request id. */
export function actorOf(request: FastifyRequest): Actor {
  return { name: `token:${request.principal?.tokenName ?? 'anonymous'}`, requestId: request.id };
}

/** Handler parameter: the Actor of this request (routes behind the AuthGuard). */
export const RequestActor = createParamDecorator((_data: unknown, context: ExecutionContext): Actor =>
  actorOf(context.switchToHttp().getRequest<FastifyRequest>()),
);
