import { type FastifyRequest } from 'fastify';

/**
 * OpenAI's `user`: an id the caller gives for the end user behind a request, so that abuse can be
 * traced to them. The gateway writes it into the request's log line (fastify-hooks.ts).
 */
const endUsers = new WeakMap<FastifyRequest, string>();

/** Notes `user` (when given) as the end user behind `request`. */
export function noteEndUser(request: FastifyRequest, user: string | null | undefined): void {
  if (user) endUsers.set(request, user);
}

/** The end user noted for `request`, if any. */
export function endUserOf(request: FastifyRequest): string | undefined {
  return endUsers.get(request);
}
