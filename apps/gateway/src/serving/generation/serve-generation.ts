import { type EndpointSpec, ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type StageTimings, formatServerTiming } from '@modelgate/observability';
import { type generatedTextSchema } from '@modelgate/processing';
import { type z } from 'zod';
import { type GatewayMetrics, type RoutedTo } from '../../metrics/gateway-metrics.js';
import { countsAsModelFailure } from '../../metrics/rollout-traffic.js';
import { type GenerationCalls, type ServeAnswer, type ServeCall } from '../serve.service.js';
import { checkGenerationInput } from './generation-input.js';
import { type GenerationEnd, type GenerationService, collectText } from './generation.service.js';
import {
  type ServeGenerationRequest,
  answerText,
  parseServeGenerationCall,
} from './serve-generation-body.js';

/** One prediction of a non-streamed `/serve` generation answer (the OpenAPI document's schema). */
export type GenerationPrediction = z.infer<typeof generatedTextSchema>;

/** The Server-Timing of a finished generation: time to first token and total, in ms. */
export function generationServerTiming(timings: GenerationEnd['timings']): string {
  const stages: StageTimings = [
    ['queue', timings.queueMs],
    ['ttft', timings.timeToFirstTokenMs],
    ['total', timings.totalMs],
  ];
  return formatServerTiming(stages);
}

/**
 * Checks a `/serve` call of a generative endpoint (text-generation, image-to-text) as far as it can
 * be checked without running it; an asynchronous call (`Prefer: respond-async`) cannot stream.
 */
export function validateGenerationCall(
  call: ServeCall,
  endpoint: EndpointSpec,
  mode: 'sync' | 'async',
): ServeGenerationRequest {
  const request = parseServeGenerationCall(endpoint, call.body);
  if (mode === 'async' && request.stream) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      'stream: an asynchronous request (Prefer: respond-async) answers one JSON result; drop stream or the Prefer header',
      { field: 'stream' },
    );
  }
  return request;
}

/**
 * Serves a `/serve` call of a generative endpoint as one JSON answer (also the path of its
 * asynchronous jobs): `{endpoint, model, version, route, predictions: [{generated_text,
 * finish_reason, prompt_tokens, generated_tokens}]}`, the prompt prefixed when return_full_text
 * (image-to-text: the caption, trimmed; prompt_tokens counts the decoder's start token).
 * Counts the call in the routed model's rollout traffic.
 */
export async function serveGenerationCall(
  generation: GenerationService,
  metrics: GatewayMetrics,
  call: ServeCall,
  endpoint: EndpointSpec,
  onRouted?: (routed: RoutedTo) => void,
): Promise<ServeAnswer> {
  const started = performance.now();
  const request = validateGenerationCall(call, endpoint, 'sync');
  if (request.stream) {
    throw new ModelgateError(ErrorCode.INTERNAL, 'a streamed generation reached the JSON serve path');
  }
  let routed: RoutedTo | undefined;
  const record = (failed: boolean) => {
    if (routed) {
      const seconds = (performance.now() - started) / 1000;
      metrics.traffic.recordServed(endpoint.name, routed.modelId, failed, seconds);
    }
  };
  try {
    const stream = await generation.start(
      call.version === undefined
        ? { endpoint: endpoint.name }
        : { endpoint: endpoint.name, version: call.version },
      request.input,
      request.params,
      {
        signal: call.signal ?? new AbortController().signal,
        headers: {},
        requestId: call.requestId,
        ...(call.stickyKey === undefined ? {} : { stickyKey: call.stickyKey }),
        onRouted: (to) => {
          routed = to;
          onRouted?.(to);
        },
      },
    );
    const end = await collectText(stream.events);
    record(false);
    const prediction: GenerationPrediction = {
      generated_text: answerText(request, end.text),
      finish_reason: end.finishReason,
      prompt_tokens: end.promptTokens,
      generated_tokens: end.generatedTokens,
    };
    return {
      body: {
        endpoint: endpoint.name,
        model: stream.model,
        version: stream.version,
        route: stream.route,
        predictions: [prediction],
      },
      modelId: `${stream.model}:${stream.version}`,
      serverTiming: generationServerTiming(end.timings),
      promptTokens: end.promptTokens,
    };
  } catch (error) {
    record(countsAsModelFailure(error));
    throw error;
  }
}

/** The GenerationCalls of the serve service: JSON answers and asynchronous jobs of generation endpoints. */
export function generationCalls(generation: GenerationService, metrics: GatewayMetrics): GenerationCalls {
  return {
    validate: (call, endpoint, model) => {
      const request = validateGenerationCall(call, endpoint, 'async');
      checkGenerationInput(model, endpoint, request.input, request.params);
    },
    serve: (call, endpoint, onRouted) => serveGenerationCall(generation, metrics, call, endpoint, onRouted),
  };
}
