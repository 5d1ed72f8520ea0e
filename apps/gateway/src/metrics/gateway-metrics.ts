import { ErrorCode, isModelgateError, toFailureReason, toHttpStatus } from '@modelgate/contracts';
import { type ClassificationAgreement } from '@modelgate/processing';
import {
  Counter,
  Gauge,
  Histogram,
  LATENCY_BUCKETS_SECONDS,
  type Registry,
  createMetricsRegistry,
  modelLabels,
} from '@modelgate/observability';
import { GenerationMetrics } from './generation-metrics.js';
import { RolloutTraffic } from './rollout-traffic.js';

/** The model (`name:version` id) and route a request was sent to, once the gateway chose them. */
export interface RoutedTo {
  modelId: string;
  route: string;
}

/**
 * The gateway's Prometheus metrics (DESIGN §3.7). The serving endpoint is labelled
 * `serving_endpoint` everywhere: the Prometheus Operator sets `endpoint` on every target itself.
 */
export class GatewayMetrics {
  readonly registry: Registry = createMetricsRegistry('gateway');

  /** Per-model counters the heartbeat carries to the registry for rollouts (not Prometheus metrics). */
  readonly traffic = new RolloutTraffic();

  /** Text generation: time to first token, inter-token latency, tokens (generation-metrics.ts). */
  readonly generation = new GenerationMetrics(this.registry);

  /** Answered requests by serving endpoint, model, version, route and HTTP status code. */
  readonly requests = new Counter({
    name: 'modelgate_requests_total',
    help: 'Requests answered, by serving endpoint, model, version, route and status code.',
    labelNames: ['serving_endpoint', 'model', 'version', 'route', 'code'] as const,
    registers: [this.registry],
  });

  /** Failed requests by serving endpoint, model, version and reason (FAILURE_REASON_BY_CODE). */
  readonly requestFailures = new Counter({
    name: 'modelgate_request_failures_total',
    help: 'Requests answered with an error, by serving endpoint, model, version and failure reason.',
    labelNames: ['serving_endpoint', 'model', 'version', 'reason'] as const,
    registers: [this.registry],
  });

  /** End-to-end time inside the gateway, by serving endpoint and route. */
  readonly requestDuration = new Histogram({
    name: 'modelgate_request_duration_seconds',
    help: 'Time from request to response, by serving endpoint and route.',
    labelNames: ['serving_endpoint', 'route'] as const,
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

  /** Counts one answered request of model `modelId` and observes its duration since `startedMs` (performance.now()). */
  recordRequest(endpoint: string, modelId: string, route: string, status: number, startedMs: number): void {
    this.requests.inc({ serving_endpoint: endpoint, ...modelLabels(modelId), route, code: String(status) });
    this.requestDuration.observe(
      { serving_endpoint: endpoint, route },
      (performance.now() - startedMs) / 1000,
    );
  }

  /**
   * Counts one request that failed with `code`, under its HTTP status and its failure reason, and
   * labelled with the model and route it was `routed` to; model, version and route are `none` for
   * a request that failed before the gateway chose them.
   */
  recordFailure(endpoint: string, code: ErrorCode, startedMs: number, routed?: RoutedTo): void {
    const modelId = routed?.modelId ?? 'none';
    this.recordRequest(endpoint, modelId, routed?.route ?? 'none', toHttpStatus(code), startedMs);
    this.requestFailures.inc({
      serving_endpoint: endpoint,
      ...modelLabels(modelId),
      reason: toFailureReason(code),
    });
  }

  /** {@link recordFailure} of what a request threw: its ModelgateError's code, INTERNAL for anything else. */
  recordError(endpoint: string, error: unknown, startedMs: number, routed?: RoutedTo): void {
    this.recordFailure(
      endpoint,
      isModelgateError(error) ? error.code : ErrorCode.INTERNAL,
      startedMs,
      routed,
    );
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

  /** Where modelgate_config_revision reads the applied revision when scraped (set once wired). */
  private appliedRevision: (() => number | undefined) | undefined;

  /**
   * The config revision this gateway has applied (0 before the first): the registry's
   * modelgate_registry_config_revision minus this is the node's config lag.
   */
  readonly configRevision = new Gauge({
    name: 'modelgate_config_revision',
    help: 'Config revision this node has applied.',
    registers: [this.registry],
    // An event loop still on an older revision makes the pod lag.
    aggregator: 'min',
    collect: () => {
      this.configRevision.set(this.appliedRevision?.() ?? 0);
    },
  });

  /** Makes modelgate_config_revision report what `source` returns at each scrape. */
  reportConfigRevision(source: () => number | undefined): void {
    this.appliedRevision = source;
  }

  /** Mirrored requests by serving endpoint, shadow model, version and outcome (ok, error, dropped). */
  readonly shadowRequests = new Counter({
    name: 'modelgate_shadow_requests_total',
    help: 'Requests mirrored to shadow models, by serving endpoint, model, version and outcome (ok, error, dropped).',
    labelNames: ['serving_endpoint', 'model', 'version', 'outcome'] as const,
    registers: [this.registry],
  });

  /** Time a mirrored request took on its shadow model. */
  readonly shadowDuration = new Histogram({
    name: 'modelgate_shadow_duration_seconds',
    help: 'Time of mirrored requests on their shadow model, by serving endpoint, model and version.',
    labelNames: ['serving_endpoint', 'model', 'version'] as const,
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [this.registry],
  });

  /** Rows the shadow agreed or disagreed on: the top-1 label (classification), the whole text (text-generation). */
  readonly shadowAgreement = new Counter({
    name: 'modelgate_shadow_agreement_total',
    help: 'Mirrored rows by whether the shadow agreed with the primary: same top-1 label (classification), same generated text (generation; sampled requests without a seed are uncompared).',
    labelNames: ['serving_endpoint', 'model', 'version', 'result'] as const,
    registers: [this.registry],
  });

  /** |Δscore| of the primary’s top-1 label between primary and shadow, per classification row. */
  readonly shadowScoreDelta = new Histogram({
    name: 'modelgate_shadow_score_delta',
    help: 'Absolute score difference on the primary’s top-1 label, per mirrored classification row.',
    labelNames: ['serving_endpoint', 'model', 'version'] as const,
    buckets: [0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1],
    registers: [this.registry],
  });

  /** Cosine similarity of primary and shadow embeddings, per feature-extraction row. */
  readonly shadowCosine = new Histogram({
    name: 'modelgate_shadow_cosine_similarity',
    help: 'Cosine similarity between primary and shadow embeddings, per mirrored row.',
    labelNames: ['serving_endpoint', 'model', 'version'] as const,
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
    const labels = { serving_endpoint: endpoint, ...modelLabels(model) };
    this.shadowRequests.inc({ ...labels, outcome });
    this.traffic.recordMirror(endpoint, model, outcome);
    if (startedMs !== undefined) {
      this.shadowDuration.observe(labels, (performance.now() - startedMs) / 1000);
    }
  }

  recordClassificationAgreement(endpoint: string, model: string, agreement: ClassificationAgreement): void {
    const disagreeing = agreement.rows - agreement.agreeing;
    this.traffic.recordAgreement(endpoint, model, agreement.agreeing, disagreeing);
    const labels = { serving_endpoint: endpoint, ...modelLabels(model) };
    if (agreement.agreeing > 0) this.shadowAgreement.inc({ ...labels, result: 'agree' }, agreement.agreeing);
    if (disagreeing > 0) this.shadowAgreement.inc({ ...labels, result: 'disagree' }, disagreeing);
    for (const delta of agreement.scoreDeltas) {
      if (Number.isFinite(delta)) this.shadowScoreDelta.observe(labels, delta);
    }
  }

  /** Rows mirrored but not compared (generations sampled without a seed): they move no rollout. */
  recordUncompared(endpoint: string, model: string, rows: number): void {
    this.traffic.recordUncompared(endpoint, model, rows);
    const labels = { serving_endpoint: endpoint, ...modelLabels(model) };
    if (rows > 0) this.shadowAgreement.inc({ ...labels, result: 'uncompared' }, rows);
  }

  recordEmbeddingSimilarity(endpoint: string, model: string, similarities: readonly number[]): void {
    const labels = { serving_endpoint: endpoint, ...modelLabels(model) };
    for (const similarity of similarities) {
      if (Number.isFinite(similarity)) this.shadowCosine.observe(labels, similarity);
    }
  }
}
