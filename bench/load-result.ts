import { type LatencySummary } from './stats.js';

/** What a load generator child reports for one step (HTTP or gRPC). */
export interface LoadResult {
  concurrency: number;
  /** Seconds the measured run lasted. */
  durationS: number;
  /** Successful answers (2xx, or gRPC OK). */
  ok: number;
  /** HTTP answers outside 2xx (gRPC: calls that failed with a status). */
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  timeouts: number;
  /** Answers by HTTP status or gRPC status name. */
  statusCodes: Record<string, number>;
  /** Successful answers per second. */
  throughput: number;
  /** Latency of successful answers as the client saw it, ms. */
  latency: LatencySummary;
  /**
   * Mean per-request stages: Server-Timing (gateway: tokenize, queue, infer, post, total) or the
   * worker's response parameters (queue, compute), ms.
   */
  stages: { samples: number; meanMs: Record<string, number> };
  /** Tokens of the inputs answered OK, [CLS]/[SEP] included (the gRPC load generator only). */
  okTokens?: number;
  /** CPU the load generator itself burnt during the measured run, ms. */
  loadGeneratorCpuMs: number;
}
