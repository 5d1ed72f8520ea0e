import { Controller, Get, Header } from '@nestjs/common';
import { PublicRoute } from '../auth/access.decorator.js';
import { RegistryMetrics } from './registry-metrics.js';

/** Prometheus text at /metrics, unauthenticated like every app's metrics. */
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: RegistryMetrics) {}

  @Get()
  @PublicRoute()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
