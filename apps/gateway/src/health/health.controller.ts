import { Controller, Get, Header, HttpStatus, Inject, Res } from '@nestjs/common';
import { InferenceClient } from '@modelgate/inference-client';
import { type FastifyReply } from 'fastify';
import { EndpointTables } from '../endpoints/endpoint-tables.service.js';
import { workerGroupFor } from '../endpoints/worker-discovery.js';
import { GatewayMetrics } from '../metrics/gateway-metrics.js';

/** How long a readiness verdict is reused, in ms (probes come every few seconds). */
const READY_CACHE_MS = 1000;

interface Readiness {
  ready: boolean;
  revision: number | null;
  endpoints: Record<string, boolean>;
}

/** Probes and Prometheus metrics. */
@Controller()
export class HealthController {
  private cached: { at: number; value: Promise<Readiness> } | undefined;

  constructor(
    @Inject(EndpointTables) private readonly tables: EndpointTables,
    @Inject(InferenceClient) private readonly client: InferenceClient,
    @Inject(GatewayMetrics) private readonly metrics: GatewayMetrics,
  ) {}

  @Get('health/live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Ready = a config revision is applied and every endpoint's serving models have a ready worker. */
  @Get('health/ready')
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<Readiness> {
    const now = performance.now();
    if (!this.cached || now - this.cached.at > READY_CACHE_MS) {
      this.cached = { at: now, value: this.checkReadiness() };
    }
    const readiness = await this.cached.value;
    void reply.status(readiness.ready ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE);
    // The revision is always the current one; only the worker checks are reused.
    return { ...readiness, revision: this.tables.current?.revision ?? null };
  }

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  metricsText(): Promise<string> {
    return this.metrics.registry.metrics();
  }

  private async checkReadiness(): Promise<Readiness> {
    const table = this.tables.current;
    if (!table) return { ready: false, revision: null, endpoints: {} };
    const entries = await Promise.all(
      [...table.endpoints.values()].map(async (endpoint) => {
        const served = endpoint.routes.filter((route) => route.role !== 'shadow' && route.weight > 0);
        const checks = await Promise.all(
          served.map(async (route) => {
            const model = table.models.get(route.model);
            if (!model) return false;
            return this.client.hasReadyWorker(
              workerGroupFor(this.client, model.spec),
              model.spec.name,
              model.spec.version,
            );
          }),
        );
        return [endpoint.name, checks.length > 0 && checks.every(Boolean)] as const;
      }),
    );
    const endpoints = Object.fromEntries(entries);
    return { ready: entries.every(([, ok]) => ok), revision: table.revision, endpoints };
  }
}
