import {
  Counter,
  Gauge,
  Histogram,
  LATENCY_BUCKETS_SECONDS,
  type Registry,
  createMetricsRegistry,
  modelLabels,
} from '@modelgate/observability';

/** The worker's Prometheus metrics (DESIGN §3.7); every per-model series is labelled `model` and `version`. */
export class WorkerMetrics {
  readonly registry: Registry = createMetricsRegistry('worker');

  /** Requests answered, by model, version and outcome (`ok` or a lower-case error code). */
  readonly inferenceRequests = new Counter({
    name: 'modelgate_inference_requests_total',
    help: 'ModelInfer calls answered, by model, version and status.',
    labelNames: ['model', 'version', 'status'] as const,
    registers: [this.registry],
  });

  /** Failed calls by model, version and failure reason (FAILURE_REASON_BY_CODE), as Triton's nv_inference_request_failure. */
  readonly inferenceFailures = new Counter({
    name: 'modelgate_inference_failures_total',
    help: 'ModelInfer calls answered with an error, by model, version and failure reason.',
    labelNames: ['model', 'version', 'reason'] as const,
    registers: [this.registry],
  });

  /** Rows per executed batch. */
  readonly batchSize = new Histogram({
    name: 'modelgate_batch_size',
    help: 'Rows per batch run on the model.',
    labelNames: ['model', 'version'] as const,
    buckets: [1, 2, 4, 8, 16, 32, 64, 128],
    registers: [this.registry],
  });

  /**
   * Tokens per batch: `real` counts each row's own tokens (its attention mask), `computed` counts
   * rows × the padded length the batch ran at. computed ÷ real is the padding waste.
   */
  readonly batchTokens = new Counter({
    name: 'modelgate_batch_tokens_total',
    help: 'Tokens in batches run on the model: real (unpadded) and computed (rows x padded length).',
    labelNames: ['model', 'version', 'kind'] as const,
    registers: [this.registry],
  });

  /** Time a request waited in the batcher's queue. */
  readonly queueDuration = new Histogram({
    name: 'modelgate_queue_duration_seconds',
    help: 'Time from enqueue to batch start.',
    labelNames: ['model', 'version'] as const,
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [this.registry],
  });

  /** Time one batch spent in onnxruntime's run, measured on the session thread. */
  readonly computeDuration = new Histogram({
    name: 'modelgate_compute_duration_seconds',
    help: 'Time onnxruntime spent running one batch (on its session thread).',
    labelNames: ['model', 'version'] as const,
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [this.registry],
  });

  /** Batches run on a model's solo session (a thread per core), which takes a batch that finds the model idle. */
  readonly soloBatches = new Counter({
    name: 'modelgate_solo_batches_total',
    help: 'Batches run on the solo session (a thread per core, inline or on its own thread; taken when every instance is idle and nothing waits).',
    labelNames: ['model', 'version'] as const,
    registers: [this.registry],
  });

  /**
   * Rows computed on each path: `inline` (the solo session on the worker's event-loop thread),
   * `solo` (the solo session on its own thread) or `instance` (libs/batching execution-path.ts).
   */
  readonly executionPathRows = new Counter({
    name: 'modelgate_execution_path_rows_total',
    help: 'Rows computed on each path: inline (on the worker event loop), solo (the solo session thread), instance.',
    labelNames: ['model', 'version', 'path'] as const,
    registers: [this.registry],
  });

  /** Where modelgate_queue_depth reads each model's waiting requests when scraped (set once wired). */
  private waitingRequests: (() => Iterable<readonly [string, number]>) | undefined;

  /** Requests waiting in the batcher right now, read from every served model at each scrape. */
  readonly queueDepth = new Gauge({
    name: 'modelgate_queue_depth',
    help: 'Requests waiting in the batcher.',
    labelNames: ['model', 'version'] as const,
    registers: [this.registry],
    collect: () => {
      this.queueDepth.reset();
      for (const [modelId, depth] of this.waitingRequests?.() ?? [])
        this.queueDepth.set(modelLabels(modelId), depth);
    },
  });

  /** Makes modelgate_queue_depth report what `source` returns (model id, waiting requests) at each scrape. */
  reportQueueDepths(source: () => Iterable<readonly [string, number]>): void {
    this.waitingRequests = source;
  }

  /** Where the generation gauges read each text-generation model's sequences when scraped (set once wired). */
  private generationLoads: (() => Iterable<{ id: string; running: number; waiting: number }>) | undefined;

  /** Sequences in a text-generation model's running batches right now (prefilled or decoding), read at each scrape. */
  readonly generationRunning = new Gauge({
    name: 'modelgate_generation_running_sequences',
    help: 'Sequences in the running batches of a text-generation model (continuous batching).',
    labelNames: ['model', 'version'] as const,
    registers: [this.registry],
    collect: () => this.collectGenerationLoads(),
  });

  /** Sequences admitted to a text-generation model and waiting for a slot, read at each scrape. */
  readonly generationWaiting = new Gauge({
    name: 'modelgate_generation_waiting_sequences',
    help: 'Sequences waiting for a slot of a text-generation model.',
    labelNames: ['model', 'version'] as const,
    registers: [this.registry],
    collect: () => this.collectGenerationLoads(),
  });

  /** Makes the generation gauges report what `source` returns at each scrape. */
  reportGenerationLoads(source: () => Iterable<{ id: string; running: number; waiting: number }>): void {
    this.generationLoads = source;
  }

  private collectGenerationLoads(): void {
    this.generationRunning.reset();
    this.generationWaiting.reset();
    for (const { id, running, waiting } of this.generationLoads?.() ?? []) {
      this.generationRunning.set(modelLabels(id), running);
      this.generationWaiting.set(modelLabels(id), waiting);
    }
  }

  /** Sequences per decode step: how many sequences continuous batching decodes together. */
  readonly generationStepSize = new Histogram({
    name: 'modelgate_generation_step_batch_size',
    help: 'Sequences decoded together in one decode step of a text-generation model.',
    labelNames: ['model', 'version'] as const,
    buckets: [1, 2, 4, 8, 16, 32, 64, 128],
    registers: [this.registry],
  });

  /**
   * Time of one model run of a text-generation or image-to-text model, by phase: `encode` (the
   * image encoder on the images of joining sequences, once per prefill group), `prefill` (joining
   * prompts) or `decode` (one token each).
   */
  readonly generationStepDuration = new Histogram({
    name: 'modelgate_generation_step_duration_seconds',
    help: 'Time of one encode (image encoder), prefill or decode step of a generation model (on its session thread).',
    labelNames: ['model', 'version', 'phase'] as const,
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [this.registry],
  });

  /** Tokens generated (streamed to callers), by model and version. */
  readonly generatedTokens = new Counter({
    name: 'modelgate_generation_tokens_total',
    help: 'Tokens generated by a text-generation model.',
    labelNames: ['model', 'version'] as const,
    registers: [this.registry],
  });

  /** ModelGenerate calls answered, by model, version and outcome (`ok` or a lower-case error code). */
  readonly generationRequests = new Counter({
    name: 'modelgate_generation_requests_total',
    help: 'ModelGenerate calls ended, by model, version and status.',
    labelNames: ['model', 'version', 'status'] as const,
    registers: [this.registry],
  });

  /**
   * Time to open one copy of a model, fetch to warm-up, by outcome (`loaded` or `failed`): slow
   * or failing loads show here before anyone reads a log. Labels: model name and version.
   */
  readonly modelLoadDuration = new Histogram({
    name: 'modelgate_model_load_duration_seconds',
    help: 'Time to load one copy of a model (fetch, sessions, warm-up), by model, version and outcome.',
    labelNames: ['model', 'version', 'outcome'] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    registers: [this.registry],
  });

  /**
   * The instances of each loaded model on each execution provider they actually run on (tensorrt,
   * cuda or cpu): a silent fall back from TensorRT to CPU is a change of this series, not only a log
   * line, and instances that fell back differently show as one series per provider.
   */
  readonly executionProvider = new Gauge({
    name: 'modelgate_model_execution_provider',
    help: 'Instances of a loaded model on each execution provider it runs on, by model, version and provider.',
    labelNames: ['model', 'version', 'provider'] as const,
    registers: [this.registry],
  });

  /** 1 while the model is READY, else 0. */
  readonly modelReady = new Gauge({
    name: 'modelgate_model_ready',
    help: '1 when the model serves requests.',
    labelNames: ['model', 'version'] as const,
    registers: [this.registry],
  });

  /** Where modelgate_config_revision reads the applied revision when scraped (set once wired). */
  private appliedRevision: (() => number | undefined) | undefined;

  /**
   * The config revision this worker has applied (0 before the first): the registry's
   * modelgate_registry_config_revision minus this is the node's config lag.
   */
  readonly configRevision = new Gauge({
    name: 'modelgate_config_revision',
    help: 'Config revision this node has applied.',
    registers: [this.registry],
    collect: () => {
      this.configRevision.set(this.appliedRevision?.() ?? 0);
    },
  });

  /** Makes modelgate_config_revision report what `source` returns at each scrape. */
  reportConfigRevision(source: () => number | undefined): void {
    this.appliedRevision = source;
  }
}
