import {
  Counter,
  Gauge,
  Histogram,
  LATENCY_BUCKETS_SECONDS,
  type Registry,
  createMetricsRegistry,
} from '@modelgate/observability';

/** The worker's Prometheus metrics (DESIGN §3.7). */
export class WorkerMetrics {
  readonly registry: Registry = createMetricsRegistry('worker');

  /** Requests answered, by model and outcome (`ok` or a lower-case error code). */
  readonly inferenceRequests = new Counter({
    name: 'modelgate_inference_requests_total',
    help: 'ModelInfer calls answered, by model and status.',
    labelNames: ['model', 'status'] as const,
    registers: [this.registry],
  });

  /** Rows per executed batch. */
  readonly batchSize = new Histogram({
    name: 'modelgate_batch_size',
    help: 'Rows per batch run on the model.',
    labelNames: ['model'] as const,
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
    labelNames: ['model', 'kind'] as const,
    registers: [this.registry],
  });

  /** Time a request waited in the batcher's queue. */
  readonly queueDuration = new Histogram({
    name: 'modelgate_queue_duration_seconds',
    help: 'Time from enqueue to batch start.',
    labelNames: ['model'] as const,
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [this.registry],
  });

  /** Time one batch spent in onnxruntime's run, measured on the session thread. */
  readonly computeDuration = new Histogram({
    name: 'modelgate_compute_duration_seconds',
    help: 'Time onnxruntime spent running one batch (on its session thread).',
    labelNames: ['model'] as const,
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [this.registry],
  });

  /** Requests waiting in the batcher right now. */
  readonly queueDepth = new Gauge({
    name: 'modelgate_queue_depth',
    help: 'Requests waiting in the batcher.',
    labelNames: ['model'] as const,
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
   * 1 for the execution provider each loaded model's sessions actually run on (tensorrt, cuda or
   * cpu): a silent fall back from TensorRT to CPU is a change of this series, not only a log line.
   */
  readonly executionProvider = new Gauge({
    name: 'modelgate_model_execution_provider',
    help: 'The execution provider a loaded model runs on (value 1), by model, version and provider.',
    labelNames: ['model', 'version', 'provider'] as const,
    registers: [this.registry],
  });

  /** 1 while the model is READY, else 0. */
  readonly modelReady = new Gauge({
    name: 'modelgate_model_ready',
    help: '1 when the model serves requests.',
    labelNames: ['model'] as const,
    registers: [this.registry],
  });
}
