// What the OpenAI generation routes (completions, chat completions) record of each request: the
// request metrics and the routed model's rollout traffic, labelled with the endpoint once known and
// the model once routed; and how they end a started generation nobody will read.
import { type EndpointSpec, ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type EndpointTables } from '../endpoints/endpoint-tables.service.js';
import { type GatewayMetrics, type RoutedTo } from '../metrics/gateway-metrics.js';
import { countsAsModelFailure } from '../metrics/rollout-traffic.js';
import { type GenerationParams } from '@modelgate/generation';
import { type FastifyRequest } from 'fastify';
import {
  type GenerationInput,
  type GenerationService,
  type GenerationStream,
} from '../serving/generation/generation.service.js';

/** How far a request got: the endpoint it names, when configured, and the model it was routed to. */
export interface Reached {
  endpoint?: string;
  routed?: RoutedTo;
}

/**
 * The endpoint a body's `model` names, noted in `reached` before the body is checked (a refused
 * option then counts against it); undefined when none is configured (the route answers its 404).
 */
export function noteEndpoint(
  tables: EndpointTables,
  body: unknown,
  reached: Reached,
): EndpointSpec | undefined {
  const named = (body as { model?: unknown } | null)?.model;
  const endpoint = typeof named === 'string' ? tables.current?.endpoints.get(named) : undefined;
  if (endpoint) reached.endpoint = endpoint.name;
  return endpoint;
}

/** 400 for an endpoint of another task than text-generation on the OpenAI generation `route`. */
export function requireGenerator(endpoint: EndpointSpec | undefined, route: string): void {
  if (!endpoint || endpoint.task === 'text-generation') return;
  throw new ModelgateError(
    ErrorCode.INVALID_ARGUMENT,
    `model: endpoint '${endpoint.name}' serves ${endpoint.task}; ${route} needs a text-generation endpoint`,
    { field: 'model' },
  );
}

/** Records a request that answered 200 (counted once it was routed). */
export function recordOpenAiSuccess(
  metrics: GatewayMetrics,
  started: number,
  reached: Reached,
  route: string,
): void {
  const { endpoint = 'unknown', routed } = reached;
  if (!routed) return;
  metrics.traffic.recordServed(endpoint, routed.modelId, false, (performance.now() - started) / 1000);
  metrics.recordRequest(endpoint, routed.modelId, route, 200, started);
}

/** A failure after routing counts against the routed model (rollouts judge it), `none` before. */
export function recordOpenAiFailure(
  metrics: GatewayMetrics,
  error: unknown,
  started: number,
  reached: Reached,
): void {
  const endpoint = reached.endpoint ?? 'unknown';
  if (reached.routed) {
    const seconds = (performance.now() - started) / 1000;
    metrics.traffic.recordServed(endpoint, reached.routed.modelId, countsAsModelFailure(error), seconds);
  }
  metrics.recordError(endpoint, error, started, reached.routed);
}

/** Ends a started generation nobody will read: its worker call is cancelled and its slot freed. */
export async function closeEvents(stream: GenerationStream): Promise<void> {
  await stream.events[Symbol.asyncIterator]()
    .return?.()
    ?.catch(() => undefined);
}

/** The client went away before the end of a stream. */
export function cancelled(): ModelgateError {
  return new ModelgateError(ErrorCode.CANCELLED, 'the client went away before the end of the generation');
}

/** One generation of an OpenAI request: a prompt (or chat) and its parameters. */
export interface OpenAiGeneration {
  input: GenerationInput;
  params: GenerationParams;
}

/**
 * Starts the generations of one request on endpoint `model`, all on the same route (the client's
 * route key when it sends one, else `requestKey`). Rejects with the first failure, after ending
 * the ones that started (nobody will read them), which frees their workers.
 */
export async function startGenerations(
  generation: GenerationService,
  model: string,
  generations: readonly OpenAiGeneration[],
  context: { request: FastifyRequest; stickyKey: string; signal: AbortSignal; reached: Reached },
): Promise<GenerationStream[]> {
  const { request, stickyKey, signal, reached } = context;
  const started = await Promise.allSettled(
    generations.map(({ input, params }) =>
      generation.start({ endpoint: model }, input, params, {
        signal,
        headers: request.headers,
        requestId: request.id,
        stickyKey,
        onRouted: (to) => {
          reached.routed = to;
        },
      }),
    ),
  );
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    for (const result of started) {
      if (result.status === 'fulfilled') void closeEvents(result.value);
    }
    throw failed.reason;
  }
  return started.map((result) => (result as PromiseFulfilledResult<GenerationStream>).value);
}
