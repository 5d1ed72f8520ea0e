import {
  Counter,
  Histogram,
  LATENCY_BUCKETS_SECONDS,
  type Registry,
  createMetricsRegistry,
} from '@modelgate/observability';

/** The gateway's Prometheus metrics (DESIGN §3.7). */
export class GatewayMetrics {
  readonly registry: Registry = createMetricsRegistry('gateway');

  /** Answered requests by endpoint, model, route and HTTP status code. */
  readonly requests = new Counter({
    name: 'modelgate_requests_total',
    help: 'Requests answered, by endpoint, model, route and status code.',
    labelNames: ['endpoint', 'model', 'route', 'code'] as const,
    registers: [this.registry],
  });

  /** End-to-end time inside the gateway, by endpoint and route. */
  readonly requestDuration = new Histogram({
    name: 'modelgate_request_duration_seconds',
    help: 'Time from request to response, by endpoint and route.',
    labelNames: ['endpoint', 'route'] as const,
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [this.registry],
  });

  /** Time per serving stage: tokenize, queue, infer, post. */
  readonly stageDuration = new Histogram({
    name: 'modelgate_stage_duration_seconds',
    help: 'Time per serving stage.',
    labelNames: ['stage'] as const,
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [this.registry],
  });

  /** The stage histogram's children, bound once: the stages are a fixed set. */
  private readonly stages = {
    tokenize: this.stageDuration.labels('tokenize'),
    queue: this.stageDuration.labels('queue'),
    infer: this.stageDuration.labels('infer'),
    post: this.stageDuration.labels('post'),
  };

  /** Counts one answered /serve request and observes its duration since `startedMs` (performance.now()). */
  recordRequest(endpoint: string, model: string, route: string, status: number, startedMs: number): void {
    this.requests.inc({ endpoint, model, route, code: String(status) });
    this.requestDuration.observe({ endpoint, route }, (performance.now() - startedMs) / 1000);
  }

  /** Observes the serving stages of one request, in ms. */
  recordStages(tokenizeMs: number, queueMs: number, inferMs: number, postMs: number): void {
    this.stages.tokenize.observe(tokenizeMs / 1000);
    this.stages.queue.observe(queueMs / 1000);
    this.stages.infer.observe(inferMs / 1000);
    this.stages.post.observe(postMs / 1000);
  }
}
