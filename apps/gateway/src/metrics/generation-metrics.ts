import {
  Counter,
  Histogram,
  LATENCY_BUCKETS_SECONDS,
  type Registry,
  modelLabels,
} from '@modelgate/observability';

/** Label value of `serving_endpoint` for generations addressed to a model (Triton's /v2/models), not an endpoint. */
export const NO_ENDPOINT = 'none';

/** Buckets of the first-token wait: a prefill plus queueing, up to whole seconds under load. */
const TIME_TO_FIRST_TOKEN_BUCKETS = [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30];

/**
 * Text-generation metrics, labelled like the request metrics (serving_endpoint, model, version).
 * Tokens per second is `rate(modelgate_generated_tokens_total[1m])`.
 */
export class GenerationMetrics {
  /** Time from the request's arrival to its first generated token. */
  readonly timeToFirstToken: Histogram<'serving_endpoint' | 'model' | 'version'>;
  /** Time between two consecutive generated tokens of one sequence. */
  readonly interTokenLatency: Histogram<'serving_endpoint' | 'model' | 'version'>;
  /** Tokens generated (what the worker produced, tokens cut by a stop string included). */
  readonly generatedTokens: Counter<'serving_endpoint' | 'model' | 'version'>;
  /** Generations that ended, by finish reason (length, eos, stop, cancelled, error). */
  readonly generations: Counter<'serving_endpoint' | 'model' | 'version' | 'finish_reason'>;

  constructor(registry: Registry) {
    const labelNames = ['serving_endpoint', 'model', 'version'] as const;
    this.timeToFirstToken = new Histogram({
      name: 'modelgate_generation_time_to_first_token_seconds',
      help: 'Time from a generation request to its first token, by serving endpoint, model and version.',
      labelNames,
      buckets: TIME_TO_FIRST_TOKEN_BUCKETS,
      registers: [registry],
    });
    this.interTokenLatency = new Histogram({
      name: 'modelgate_generation_inter_token_latency_seconds',
      help: 'Time between consecutive tokens of one generated sequence, by serving endpoint, model and version.',
      labelNames,
      buckets: LATENCY_BUCKETS_SECONDS,
      registers: [registry],
    });
    this.generatedTokens = new Counter({
      name: 'modelgate_generated_tokens_total',
      help: 'Tokens generated, by serving endpoint, model and version (rate() of it is tokens/s).',
      labelNames,
      registers: [registry],
    });
    this.generations = new Counter({
      name: 'modelgate_generations_total',
      help: 'Generations that ended, by serving endpoint, model, version and finish reason (length, eos, stop, cancelled, error).',
      labelNames: [...labelNames, 'finish_reason'] as const,
      registers: [registry],
    });
  }

  /** The recorder of one generation on `modelId` (`endpoint` undefined for a model-addressed call). */
  recorder(endpoint: string | undefined, modelId: string): GenerationRecorder {
    const labels = { serving_endpoint: endpoint ?? NO_ENDPOINT, ...modelLabels(modelId) };
    return {
      firstToken: (seconds) => this.timeToFirstToken.observe(labels, seconds),
      tokens: (count, gapSeconds) => {
        this.generatedTokens.inc(labels, count);
        // A message with several tokens: the gap is spread over them.
        if (gapSeconds !== undefined && count > 0) {
          for (let i = 0; i < count; i++) this.interTokenLatency.observe(labels, gapSeconds / count);
        }
      },
      ended: (reason) => this.generations.inc({ ...labels, finish_reason: reason }),
    };
  }
}

/** Records the life of one generation. */
export interface GenerationRecorder {
  /** The first token arrived `seconds` after the request. */
  firstToken(seconds: number): void;
  /** `count` tokens arrived, `gapSeconds` after the previous ones (undefined for the first). */
  tokens(count: number, gapSeconds: number | undefined): void;
  /** The generation ended. */
  ended(reason: 'length' | 'eos' | 'stop' | 'cancelled' | 'error'): void;
}
