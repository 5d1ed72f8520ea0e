import { ErrorCode, ModelgateError, isGenerativeTask } from '@modelgate/contracts';
import { type Logger } from '@modelgate/observability';
import { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { type AsyncInference } from '../async-jobs/async-inference.js';
import { type EndpointTables } from '../endpoints/endpoint-tables.service.js';
import { clientGoneSignal } from '../http/client-gone.js';
import { RawImageBody } from '../http/image-body.js';
import { SERVE_ROUTE_BODY_CEILING, limitServeBody, serveBodyLimit } from '../http/serve-body-limit.js';
import { sendErrorReply } from '../http/http-exception.filter.js';
import { type GatewayMetrics, type RoutedTo } from '../metrics/gateway-metrics.js';
import { type GenerationService } from './generation/generation.service.js';
import { parseServeGenerationCall } from './generation/serve-generation-body.js';
import { mayReadImages, refuseRawImage } from './image-input.js';
import { streamServeGeneration } from './generation/serve-generation-stream.js';
import { type ServeAnswer, type ServeCall, type ServeService } from './serve.service.js';
import { stickyRouteKey } from './sticky-key.js';
import { installTokenizeRoute } from './tokenize-route.js';

/** The 202 body of an asynchronous request. */
export interface AcceptedJob {
  job: string;
  status_url: string;
}

/** What the serve routes work with, taken from the Nest container once it is built. */
export interface ServeRouteDeps {
  service: ServeService;
  tables: EndpointTables;
  metrics: GatewayMetrics;
  asyncInference: AsyncInference | undefined;
  logger: Logger;
  /** Streams `"stream": true` calls of generative endpoints (without it, they answer 500). */
  generation?: GenerationService;
  /** GATEWAY_BODY_LIMIT_BYTES: the body limit of every endpoint but image ones (http/serve-body-limit.ts). */
  bodyLimit: number;
}

/** Path parameters of both serve routes; `version` only on the pinned one. */
interface ServeParams {
  endpoint: string;
  version?: string;
}

type ServeRequest = FastifyRequest<{ Params: ServeParams }>;

/**
 * `POST /serve/:endpoint` and `POST /serve/:endpoint/:version` as plain Fastify routes: they are
 * the gateway's hot path, and Nest's controller pipeline (router proxy, interceptors consumer,
 * param factories, response controller) is per-request work that buys these two routes nothing:
 * they have no guards, pipes or interceptors. Everything else stays Nest's. The Fastify hooks
 * (415 for non-JSON, x-request-id, the request log) apply as to every route, the body limit per
 * endpoint (http/serve-body-limit.ts);
 * errors, the body parser's included, are answered through the same `sendErrorReply` as the
 * Nest filter; openapi/serve-openapi.ts documents the routes.
 */
export function installServeRoutes(fastify: FastifyInstance, deps: ServeRouteDeps): void {
  const routes = new ServeRoutes(deps);
  const handler = (request: ServeRequest, reply: FastifyReply) => {
    // find-my-way matches "/serve/x/" with an empty version; Nest's adapter sends a request with an
    // empty parameter to the not-found handler, and so do these routes.
    const { endpoint, version } = request.params;
    if (endpoint === '' || version === '') {
      reply.callNotFound();
      return undefined;
    }
    return routes.handle(request, reply);
  };
  const errorHandler = (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    void sendErrorReply(request, reply, error, deps.logger);
  };
  const preParsing = limitServeBody((request) => {
    const table = deps.tables.current;
    const endpoint = table?.endpoints.get((request.params as ServeParams).endpoint);
    const readsImages = table !== undefined && endpoint !== undefined && mayReadImages(table, endpoint);
    return serveBodyLimit(endpoint, deps.bodyLimit, readsImages);
  });
  const options = { errorHandler, preParsing, bodyLimit: SERVE_ROUTE_BODY_CEILING };
  fastify.post<{ Params: ServeParams }>('/serve/:endpoint', options, handler);
  fastify.post<{ Params: ServeParams }>('/serve/:endpoint/:version', options, handler);
  installTokenizeRoute(fastify, deps);
}

/** The handler behind both routes. */
class ServeRoutes {
  constructor(private readonly deps: ServeRouteDeps) {}

  /** Resolves with the 200 (or 202) body; rejects with the error the route's error handler answers. */
  async handle(
    request: ServeRequest,
    reply: FastifyReply,
  ): Promise<ServeAnswer['body'] | AcceptedJob | FastifyReply> {
    const started = performance.now();
    const { endpoint, version } = request.params;
    const headers = request.headers;
    const spec = this.deps.tables.current?.endpoints.get(endpoint);
    const sticky = stickyRouteKey(headers, spec);
    const call: ServeCall = { endpoint, body: request.body, requestId: request.id };
    if (version !== undefined) call.version = version;
    if (sticky !== undefined) call.stickyKey = sticky;
    if (prefersAsync(headers.prefer)) {
      // A JSON body's `stream: true` is refused by the job's own check (validateGenerationCall).
      if (
        spec &&
        isGenerativeTask(spec.task) &&
        request.body instanceof RawImageBody &&
        isStreamRequest(request.body, headers.accept)
      ) {
        throw new ModelgateError(
          ErrorCode.INVALID_ARGUMENT,
          'an asynchronous request (Prefer: respond-async) answers one JSON result, not a stream: drop Accept: text/event-stream or the Prefer header',
        );
      }
      return this.accept(call, reply);
    }

    const signal = clientGoneSignal(request.raw.socket);
    call.signal = signal;
    let routed: RoutedTo | undefined;
    try {
      if (spec && isGenerativeTask(spec.task) && isStreamRequest(request.body, headers.accept)) {
        refuseRawImage(spec, request.body);
        const parsed = parseServeGenerationCall(spec, request.body, true);
        const deps = { ...this.deps, generation: this.requireGeneration() };
        await streamServeGeneration(deps, request, reply, { ...call, signal }, spec, parsed, (to) => {
          routed = to;
        });
        return reply;
      }
      const answer = await this.deps.service.serve(call, (to) => {
        routed = to;
      });
      void reply.header('x-modelgate-model', answer.modelId).header('server-timing', answer.serverTiming);
      this.deps.metrics.recordRequest(answer.body.endpoint, answer.modelId, answer.body.route, 200, started);
      return answer.body;
    } catch (error) {
      // A failure after routing counts against the routed model; `none` before (metrics/gateway-metrics.ts).
      this.deps.metrics.recordError(spec ? endpoint : 'unknown', error, started, routed);
      throw error;
    }
  }

  private requireGeneration(): GenerationService {
    const generation = this.deps.generation;
    if (!generation) throw new ModelgateError(ErrorCode.INTERNAL, 'text generation streaming is not wired');
    return generation;
  }

  /** `Prefer: respond-async`: checks and queues the call, answers 202 with where to poll. */
  private async accept(call: ServeCall, reply: FastifyReply): Promise<AcceptedJob> {
    const asyncInference = this.deps.asyncInference;
    if (!asyncInference) {
      throw new ModelgateError(
        ErrorCode.UNAVAILABLE,
        'asynchronous inference (Prefer: respond-async) needs Redis: start the gateway with REDIS_URL',
      );
    }
    const job = await asyncInference.submit(call);
    const statusUrl = `/jobs/${encodeURIComponent(job)}`;
    void reply.status(202).header('location', statusUrl).header('preference-applied', 'respond-async');
    return { job, status_url: statusUrl };
  }
}

/**
 * True for a request asking for a streamed answer: a JSON body with `"stream": true`, or a raw
 * image body (which has no fields) with `Accept: text/event-stream`.
 */
function isStreamRequest(body: unknown, accept: string | undefined): boolean {
  if (body instanceof RawImageBody) return accept?.toLowerCase().includes('text/event-stream') === true;
  return typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;
}

/**
 * Whether a `Prefer` header holds the `respond-async` preference (RFC 7240: comma-separated
 * preferences, each a case-insensitive name with optional `=value` and `;` parameters).
 */
export function prefersAsync(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  return [header]
    .flat()
    .join(',')
    .split(',')
    .some((preference) => {
      const name = preference.split(/[=;]/, 1)[0]!.trim().toLowerCase();
      return name === 'respond-async';
    });
}
