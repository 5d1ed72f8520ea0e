import { type ClassificationAgreement } from '@modelgate/processing';
import {
  Counter,
  Gauge,
  Histogram,
  LATENCY_BUCKETS_SECONDS,
  type Registry,
  createMetricsRegistry,
} from '@modelgate/observability';
import { RolloutTraffic } from './rollout-traffic.js';

/** The gateway's Prometheus metrics (DESIGN §3.7). */
export class GatewayMetrics {
  readonly registry: Registry = createMetricsRegistry('gateway');

  /** Per-model counters the heartbeat carries to the registry for rollouts (not Prometheus metrics). */
  readonly traffic = new RolloutTraffic();

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

  /** Where modelgate_endpoint_ready reads its verdicts when scraped (set once the gateway is wired). */
  private endpointVerdicts: (() => Promise<ReadonlyMap<string, { ready: boolean }>>) | undefined;

  /**
   * 1 when this gateway can serve the endpoint now (every route that takes traffic has its model
   * loaded here and a ready worker), else 0; read fresh at each scrape. Labelled
   * `serving_endpoint`: the Prometheus Operator sets `endpoint` on every target itself.
   */
  readonly endpointReady = new Gauge({
    name: 'modelgate_endpoint_ready',
    help: 'Whether this gateway can serve the endpoint now (1) or not (0), by serving endpoint.',
    labelNames: ['serving_endpoint'] as const,
    registers: [this.registry],
    // Event loops that disagree (one checked a moment later) report the endpoint unservable.
    aggregator: 'min',
    collect: async () => {
      if (!this.endpointVerdicts) return;
      const verdicts = await this.endpointVerdicts();
      this.endpointReady.reset(); // endpoints no longer configured disappear
      for (const [name, verdict] of verdicts) {
        this.endpointReady.set({ serving_endpoint: name }, verdict.ready ? 1 : 0);
      }
    },
  });

  /** Makes modelgate_endpoint_ready report the verdicts `source` resolves with at each scrape. */
  reportEndpointReadiness(source: () => Promise<ReadonlyMap<string, { ready: boolean }>>): void {
    this.endpointVerdicts = source;
  }

  /** Mirrored requests by endpoint, shadow model and outcome (ok, error, dropped). */
  readonly shadowRequests = new Counter({
    name: 'modelgate_shadow_requests_total',
    help: 'Requests mirrored to shadow models, by endpoint, model and outcome (ok, error, dropped).',
    labelNames: ['endpoint', 'model', 'outcome'] as const,
    registers: [this.registry],
  });

  /** Time a mirrored request took on its shadow model. */
  readonly shadowDuration = new Histogram({
    name: 'modelgate_shadow_duration_seconds',
    help: 'Time of mirrored requests on their shadow model, by endpoint and model.',
    labelNames: ['endpoint', 'model'] as const,
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [this.registry],
  });

  /** Classification rows whose top-1 label the shadow agreed or disagreed on. */
  readonly shadowAgreement = new Counter({
    name: 'modelgate_shadow_agreement_total',
    help: 'Mirrored classification rows by whether the shadow’s top-1 label matched the primary’s.',
    labelNames: ['endpoint', 'model', 'result'] as const,
    registers: [this.registry],
  });

  /** |Δscore| of the primary’s top-1 label between primary and shadow, per classification row. */
  readonly shadowScoreDelta = new Histogram({
    name: 'modelgate_shadow_score_delta',
    help: 'Absolute score difference on the primary’s top-1 label, per mirrored classification row.',
    labelNames: ['endpoint', 'model'] as const,
    buckets: [0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1],
    registers: [this.registry],
  });

  /** Cosine similarity of primary and shadow embeddings, per feature-extraction row. */
  readonly shadowCosine = new Histogram({
    name: 'modelgate_shadow_cosine_similarity',
    help: 'Cosine similarity between primary and shadow embeddings, per mirrored row.',
    labelNames: ['endpoint', 'model'] as const,
    buckets: [0, 0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 1],
    registers: [this.registry],
  });

  /** Counts one mirror's outcome and, when it ran, its duration since `startedMs` (performance.now()). */
  recordShadow(
    endpoint: string,
    model: string,
    outcome: 'ok' | 'error' | 'dropped',
    startedMs?: number,
  ): void {
    this.shadowRequests.inc({ endpoint, model, outcome });
    this.traffic.recordMirror(endpoint, model, outcome);
    if (startedMs !== undefined) {
      this.shadowDuration.observe({ endpoint, model }, (performance.now() - startedMs) / 1000);
    }
  }

  recordClassificationAgreement(endpoint: string, model: string, agreement: ClassificationAgreement): void {
    const disagreeing = agreement.rows - agreement.agreeing;
    this.traffic.recordAgreement(endpoint, model, agreement.agreeing, disagreeing);
    if (agreement.agreeing > 0)
      this.shadowAgreement.inc({ endpoint, model, result: 'agree' }, agreement.agreeing);
    if (disagreeing > 0) this.shadowAgreement.inc({ endpoint, model, result: 'disagree' }, disagreeing);
    for (const delta of agreement.scoreDeltas) {
      if (Number.isFinite(delta)) this.shadowScoreDelta.observe({ endpoint, model }, delta);
    }
  }

  recordEmbeddingSimilarity(endpoint: string, model: string, similarities: readonly number[]): void {
    for (const similarity of similarities) {
      if (Number.isFinite(similarity)) this.shadowCosine.observe({ endpoint, model }, similarity);
    }
  }
}
