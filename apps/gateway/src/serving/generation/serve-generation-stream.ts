import { type EndpointSpec, ErrorCode, isModelgateError } from '@modelgate/contracts';
import { type Logger } from '@modelgate/observability';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { toErrorResponse } from '../../http/http-exception.filter.js';
import { openSse } from '../../http/sse.js';
import { type GatewayMetrics, type RoutedTo } from '../../metrics/gateway-metrics.js';
import { countsAsModelFailure } from '../../metrics/rollout-traffic.js';
import { type ServeCall } from '../serve.service.js';
import { type GenerationEnd, type GenerationService } from './generation.service.js';
import { generationServerTiming } from './serve-generation.js';
import { type ServeGenerationRequest } from './serve-generation-body.js';

/** What the streamed `/serve` answer needs. */
export interface StreamGenerationDeps {
  generation: GenerationService;
  metrics: GatewayMetrics;
  logger: Logger;
}

/** The `event: end` data of a streamed `/serve` generation. */
export interface StreamEndData {
  finish_reason: GenerationEnd['finishReason'];
  generated_text: string;
  prompt_tokens: number;
  generated_tokens: number;
  timings: { queue_ms: number; time_to_first_token_ms: number; total_ms: number };
}

/**
 * `POST /serve/<endpoint>` with `"stream": true` on a text-generation endpoint: Server-Sent Events.
 * Each delta is `data: {"text": "<delta>", "token_ids": [...]}`; the last event is `event: end`
 * with `{finish_reason, generated_text, prompt_tokens, generated_tokens, timings}` (the prompt
 * prefixed to generated_text when return_full_text), and Server-Timing (queue, ttft, total) comes
 * as an HTTP trailer. Failures before the first token are ordinary HTTP errors (the caller's
 * error handler answers them: this rejects); a failure after it is `event: error` with the error
 * table's body. A client that goes away cancels the worker call (its slot is freed).
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
  const stream = await deps.generation.start(
    call.version === undefined
      ? { endpoint: endpoint.name }
      : { endpoint: endpoint.name, version: call.version },
    parsed.prompt,
    parsed.params,
    {
      signal: call.signal,
      headers: request.headers,
      requestId: call.requestId,
      onRouted: (to) => {
        routed = to;
        onRouted(to);
      },
    },
  );
  const modelId = `${stream.model}:${stream.version}`;
  const recordTraffic = (failed: boolean) =>
    deps.metrics.traffic.recordServed(endpoint.name, modelId, failed, (performance.now() - started) / 1000);
  void reply.hijack(); // from here the answer is written on the raw response
  const sse = openSse(reply.raw, {
    'x-request-id': request.id,
    'x-modelgate-model': modelId,
    trailer: 'server-timing',
  });
  let ended = false;
  try {
    for await (const event of stream.events) {
      if (event.type === 'delta') {
        sse.event({ text: event.text, token_ids: event.tokenIds });
        continue;
      }
      const end: StreamEndData = {
        finish_reason: event.finishReason,
        generated_text: parsed.returnFullText ? parsed.prompt + event.text : event.text,
        prompt_tokens: event.promptTokens,
        generated_tokens: event.generatedTokens,
        timings: {
          queue_ms: event.timings.queueMs,
          time_to_first_token_ms: event.timings.timeToFirstTokenMs,
          total_ms: event.timings.totalMs,
        },
      };
      sse.event(end, 'end');
      sse.end({ 'server-timing': generationServerTiming(event.timings) });
      ended = true;
    }
    if (ended) {
      recordTraffic(false);
      deps.metrics.recordRequest(endpoint.name, modelId, stream.route, 200, started);
      return;
    }
    // No end: the client went away and the worker call was cancelled.
    sse.end();
    deps.metrics.recordFailure(endpoint.name, ErrorCode.CANCELLED, started, routed);
  } catch (error) {
    // The status line (200) is gone: the error is the stream's last event.
    const { body } = toErrorResponse(error, request.id, deps.logger);
    sse.event(body, 'error');
    sse.end();
    recordTraffic(countsAsModelFailure(error));
    const code = isModelgateError(error) ? error.code : ErrorCode.INTERNAL;
    deps.metrics.recordFailure(endpoint.name, code, started, routed);
  }
}
