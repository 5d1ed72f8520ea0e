import { Controller, Get, Header, HttpStatus, Inject, Res } from '@nestjs/common';
import { type FastifyReply } from 'fastify';
import { EndpointTables } from '../endpoints/endpoint-tables.service.js';
import { GatewayLifecycle } from '../lifecycle/gateway-lifecycle.js';
import { METRICS_TEXT } from '../gateway.tokens.js';
import { type EndpointServability } from './endpoint-servability.js';
import { EndpointServabilityMonitor } from './endpoint-servability-monitor.js';
import { type ReadinessReason, decideReadiness } from './readiness.js';

/** The body of `GET /health/ready`. */
interface ReadinessBody {
  ready: boolean;
  /** Why (readiness.ts): serving, no-revision or shutting-down. */
  reason: ReadinessReason;
  revision: number | null;
  /** Whether each endpoint can be served now, and why not (reported here, never a gate). */
  endpoints: Record<string, EndpointServability>;
}

/** Probes and Prometheus metrics. */
@Controller()
export class HealthController {
  constructor(
    @Inject(EndpointTables) private readonly tables: EndpointTables,
    @Inject(EndpointServabilityMonitor) private readonly servability: EndpointServabilityMonitor,
    @Inject(GatewayLifecycle) private readonly lifecycle: GatewayLifecycle,
    /** The pod's metrics in a cluster (pod/cluster-metrics.ts), else this process's registry. */
    @Inject(METRICS_TEXT) private readonly exposition: () => Promise<string>,
  ) {}

  @Get('health/live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /**
   * Ready = a config revision is applied and the gateway is not shutting down (readiness.ts). The
   * per-endpoint verdicts come along without being waited for (at most a second old).
   */
  @Get('health/ready')
  ready(@Res({ passthrough: true }) reply: FastifyReply): ReadinessBody {
    const revision = this.tables.current?.revision;
    const verdict = decideReadiness({ revision, shuttingDown: this.lifecycle.shuttingDown });
    void reply.status(verdict.ready ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE);
    return {
      ...verdict,
      revision: revision ?? null,
      endpoints: Object.fromEntries(this.servability.latest()),
    };
  }

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  metricsText(): Promise<string> {
    return this.exposition();
  }
}
