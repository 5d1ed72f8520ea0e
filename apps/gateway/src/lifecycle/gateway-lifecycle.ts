import { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';

/** Whether this gateway event loop is shutting down; readiness and the HTTP hooks read it. */
export class GatewayLifecycle {
  private stopping = false;

  /** True from the termination signal on. */
  get shuttingDown(): boolean {
    return this.stopping;
  }

  /** Readiness turns false from now on; requests are still served until the listener closes. */
  beginShutdown(): void {
    this.stopping = true;
  }
}

/**
 * While shutting down, every answer carries `connection: close`: a client that keeps connections
 * alive to this gateway (through a Service's virtual IP the connection, not the request, picks
 * the pod) opens its next one where the load balancer now sends it.
 */
export function installClosingConnectionHook(fastify: FastifyInstance, lifecycle: GatewayLifecycle): void {
  fastify.addHook('onRequest', (_request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (lifecycle.shuttingDown) void reply.header('connection', 'close');
    done();
  });
}
