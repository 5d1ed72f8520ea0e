// autocannon 8 ships no types; this declares the slice of its programmatic API the bench uses.
declare module 'autocannon' {
  import { type EventEmitter } from 'node:events';

  namespace autocannon {
    /** One request template; `setupRequest` may rewrite it before every send. */
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
      /** Called with every response; headers as a lower-cased name → value map. */
      onResponse?: (
        status: number,
        body: string,
        context: Record<string, unknown>,
        headers: Record<string, string | string[]>,
      ) => void;
    }

    /** The per-connection client, as `setupClient` sees it. */
    interface Client extends EventEmitter {
      on(
        event: 'response',
        listener: (statusCode: number, bytes: number, durationMs: number, rate: number) => void,
      ): this;
      on(event: string, listener: (...args: unknown[]) => void): this;
    }

    interface Options {
      url: string;
      /** Concurrent connections (each has at most `pipelining` requests in flight). */
      connections?: number;
      pipelining?: number;
      /** Seconds. */
      duration?: number;
      /** Total requests; overrides duration. */
      amount?: number;
      /** Seconds before a request counts as a timeout. */
      timeout?: number;
      requests?: Request[];
      setupClient?: (client: Client) => void;
    }

    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      p50: number;
      p90: number;
      p99: number;
      total?: number;
    }

    interface Result {
      /** Seconds the run lasted. */
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      resets: number;
      '2xx': number;
      statusCodeStats: Record<string, { count: number }>;
      latency: Histogram;
      requests: Histogram & { sent: number };
    }

    /** A running benchmark: an event emitter that is also a promise of the result. */
    interface Instance extends EventEmitter, PromiseLike<Result> {
      stop(): void;
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;
  export = autocannon;
}
