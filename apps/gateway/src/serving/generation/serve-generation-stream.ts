import { type EndpointSpec, ErrorCode } from '@modelgate/contracts';
import { type Logger } from '@modelgate/observability';
import { type generationEventSchema } from '@modelgate/processing';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { type z } from 'zod';
import { type GenerationSseFormat, sendGenerationSse } from '../../http/generation-answer.js';
import { type GatewayMetrics, type RoutedTo } from '../../metrics/gateway-metrics.js';
import { countsAsModelFailure } from '../../metrics/rollout-traffic.js';
import { type ServeCall } from '../serve.service.js';
import { type GenerationService } from './generation.service.js';
import { generationServerTiming } from './serve-generation.js';
import { type ServeGenerationRequest, answerText } from './serve-generation-body.js';

/** What the streamed `/serve` answer needs. */
export interface StreamGenerationDeps {
  generation: GenerationService;
  metrics: GatewayMetrics;
  logger: Logger;
}

/** The `data` of each event of a streamed `/serve` generation (the schema of the OpenAPI document). */
type ServeGenerationEvent = z.infer<typeof generationEventSchema>;

/**
 * `POST /serve/<endpoint>` with `"stream": true` on a text-generation or image-to-text endpoint (or
 * a raw image with `Accept: text/event-stream`): Server-Sent Events.
 * Each delta is `data: {"text": "<delta>", "token_ids": [...]}`; the last event is `event: end`
 * with `{finish_reason, generated_text, prompt_tokens, generated_tokens, timings}` (the prompt
 * prefixed to generated_text when return_full_text), and Server-Timing (queue, ttft, total) comes
 * as an HTTP trailer. Failures before the first token are ordinary HTTP errors (the caller's
 * error handler answers them: this rejects); a failure after it is `event: error` with the error
 * table's body. A client that goes away cancels the worker call (its slot is freed). Every call
 * that reached a model counts in its rollout traffic, failures before the first token included.
 */
export async function streamServeGeneration(
  deps: StreamGenerationDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  call: ServeCall & { signal: AbortSignal },
  endpoint: EndpointSpec,
  parsed: ServeGenerationRequest,
  onRouted: (routed: RoutedTo) => void,
): Promise<void> {
  const started = performance.now();
  let routed: RoutedTo | undefined;
  const recordTraffic = (failed: boolean) => {
    if (!routed) return;
    const seconds = (performance.now() - started) / 1000;
    deps.metrics.traffic.recordServed(endpoint.name, routed.modelId, failed, seconds);
  };
  let stream;
  try {
    stream = await deps.generation.start(
      call.version === undefined
        ? { endpoint: endpoint.name }
        : { endpoint: endpoint.name, version: call.version },
      parsed.input,
      parsed.params,
      {
        signal: call.signal,
        headers: request.headers,
        requestId: call.requestId,
        ...(call.stickyKey === undefined ? {} : { stickyKey: call.stickyKey }),
        onRouted: (to) => {
          routed = to;
          onRouted(to);
        },
      },
    );
  } catch (error) {
    recordTraffic(countsAsModelFailure(error));
    throw error;
  }
  const modelId = `${stream.model}:${stream.version}`;
  const sent = await sendGenerationSse(
    reply,
    [stream],
    serveEvents(parsed),
    { 'x-modelgate-model': modelId, trailer: 'server-timing' },
    deps.logger,
  );
  if (sent.outcome === 'ended') {
    recordTraffic(false);
    deps.metrics.recordRequest(endpoint.name, modelId, stream.route, 200, started);
    return;
  }
  if (sent.outcome === 'cancelled') {
    // The client went away and the worker call was cancelled: no verdict on the model.
    deps.metrics.recordFailure(endpoint.name, ErrorCode.CANCELLED, started, routed);
    return;
  }
  recordTraffic(countsAsModelFailure(sent.error));
  deps.metrics.recordError(endpoint.name, sent.error, started, routed);
}

/** /serve's event format: unnamed deltas, `event: end`, `event: error`, Server-Timing as a trailer. */
function serveEvents(parsed: ServeGenerationRequest): GenerationSseFormat {
  const data = (event: ServeGenerationEvent) => event;
  return {
    start: () => [],
    delta: (delta) => data({ text: delta.text, token_ids: delta.tokenIds }),
    end: (end) => [
      data({
        finish_reason: end.finishReason,
        generated_text: answerText(parsed, end.text),
        prompt_tokens: end.promptTokens,
        generated_tokens: end.generatedTokens,
        timings: {
          queue_ms: end.timings.queueMs,
          time_to_first_token_ms: end.timings.timeToFirstTokenMs,
          total_ms: end.timings.totalMs,
        },
      }),
    ],
    error: (_status, body) => body,
    names: { end: 'end', error: 'error' },
    trailers: (ends) => ({ 'server-timing': generationServerTiming(ends[0]!.timings) }),
  };
}
