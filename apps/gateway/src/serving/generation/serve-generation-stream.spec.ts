import { type EndpointSpec, ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type Logger } from '@modelgate/observability';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { type GatewayMetrics } from '../../metrics/gateway-metrics.js';
import { type GenerationCallOptions, type GenerationService } from './generation.service.js';
import { streamServeGeneration } from './serve-generation-stream.js';
import { type ServeGenerationRequest } from './serve-generation-body.js';

/** Rollout traffic as recorded: model and whether it counted as the model's failure. */
function recordingMetrics() {
  const served: { model: string; failed: boolean }[] = [];
  const metrics = {
    traffic: {
      recordServed: (_endpoint: string, model: string, failed: boolean) => served.push({ model, failed }),
    },
  } as unknown as GatewayMetrics;
  return { served, metrics };
}

/** A generation service that routes to gpt:1, then fails with `error` before the first token. */
function failingGeneration(error: Error): GenerationService {
  return {
    start: (_target: unknown, _input: unknown, _params: unknown, options: GenerationCallOptions) => {
      options.onRouted?.({ modelId: 'gpt:1', route: 'primary' });
      return Promise.reject(error);
    },
  } as unknown as GenerationService;
}

const parsed = {
  input: { kind: 'text', prompt: 'Hi' },
  params: {},
  returnFullText: false,
  stream: true,
} as ServeGenerationRequest;
const endpoint = { name: 'writer' } as EndpointSpec;
const request = { headers: {}, id: 'req-1' } as FastifyRequest;
const call = { endpoint: 'writer', body: {}, requestId: 'req-1', signal: new AbortController().signal };

describe('streamServeGeneration', () => {
  it.each([
    [new ModelgateError(ErrorCode.UNAVAILABLE, 'no worker'), true],
    [new ModelgateError(ErrorCode.QUEUE_FULL, 'queue full'), false],
  ])(
    'counts a failure before the first token in the routed model’s rollout traffic (%s)',
    async (error, failed) => {
      const { served, metrics } = recordingMetrics();
      const deps = { generation: failingGeneration(error), metrics, logger: {} as Logger };
      const routed: string[] = [];
      const streaming = streamServeGeneration(
        deps,
        request,
        {} as FastifyReply,
        call,
        endpoint,
        parsed,
        (to) => routed.push(to.modelId),
      );
      await expect(streaming).rejects.toBe(error);
      expect(routed).toEqual(['gpt:1']);
      expect(served).toEqual([{ model: 'gpt:1', failed }]);
    },
  );
});
