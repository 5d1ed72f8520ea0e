import { Controller, Get, Header, HttpStatus, Res } from '@nestjs/common';
import { type FastifyReply } from 'fastify';
import { ModelManager } from '../model-loading/model-manager.js';
import { WorkerMetrics } from '../metrics/worker-metrics.js';

/** HTTP probes and Prometheus metrics on the worker's metrics port. */
@Controller()
export class HttpProbesController {
  constructor(
    private readonly models: ModelManager,
    private readonly metrics: WorkerMetrics,
  ) {}

  @Get('health/live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('health/ready')
  ready(@Res({ passthrough: true }) reply: FastifyReply): {
    ready: boolean;
    revision: number | null;
    models: object;
    reasons: object;
  } {
    const ready = this.models.ready;
    void reply.status(ready ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE);
    return {
      ready,
      revision: this.models.revision ?? null,
      models: this.models.states(),
      reasons: this.models.failureReasons(),
    };
  }

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async metricsText(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
