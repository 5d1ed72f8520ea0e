import { Controller, Inject, UseFilters } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import { type Metadata, type ServerWritableStream } from '@grpc/grpc-js';
import { ErrorCode, ModelgateError, isModelgateError } from '@modelgate/contracts';
import { modelLabels } from '@modelgate/observability';
import { Observable, type Subscriber } from 'rxjs';
import { type LoopPause } from '../generation/generation-protocol.js';
import { WorkerMetrics } from '../metrics/worker-metrics.js';
import { ModelManager } from '../model-loading/model-manager.js';
import { type WorkerConfig } from '../worker.config.js';
import { WORKER_CONFIG } from '../worker.tokens.js';
import {
  type ModelGenerateRequestMessage,
  type ModelGenerateResponseMessage,
  decodeGenerateRequest,
  tokenLogprobMessage,
} from './generate-request.js';
import { type CallContext, grpcCallContext } from './call-context.js';
import { failureCode } from './failure-code.js';
import { GrpcExceptionFilter } from './grpc-exception.filter.js';
import { TEST_CRASH_HEADER } from './inference.controller.js';

/**
 * Metadata key of the generation-pause test hook (honoured only with WORKER_TEST_HOOKS):
 * `<afterTokens>:<untilWaiting>` — once this sequence has generated afterTokens tokens, its
 * model's loop pauses until untilWaiting sequences wait to join, or this call is cancelled.
 */
export const TEST_GENERATION_PAUSE_HEADER = 'x-modelgate-test-generation-pause';

/**
 * modelgate's ModelGenerate (server streaming): one message per step that produced tokens, the
 * last one with its finish reason. Errors before or during the stream go through the same filter
 * and status table as ModelInfer; a call that goes away cancels its sequence.
 */
@Controller()
@UseFilters(GrpcExceptionFilter)
export class GenerationController {
  constructor(
    private readonly models: ModelManager,
    private readonly metrics: WorkerMetrics,
    @Inject(WORKER_CONFIG) private readonly config: WorkerConfig,
  ) {}

  @GrpcMethod('GRPCInferenceService', 'ModelGenerate')
  modelGenerate(
    request: ModelGenerateRequestMessage,
    metadata: Metadata,
    call: ServerWritableStream<unknown, unknown>,
  ): Observable<ModelGenerateResponseMessage> {
    return this.generate(request, grpcCallContext(metadata, call));
  }

  /**
   * ModelGenerate for any transport: gRPC above, the in-process one (serving/local-endpoint.ts).
   * Unsubscribing before the last message cancels the sequence.
   */
  generate(
    request: ModelGenerateRequestMessage,
    context: CallContext,
  ): Observable<ModelGenerateResponseMessage> {
    return new Observable((subscriber) => this.run(request, context, subscriber));
  }

  /** Starts the sequence; the returned teardown cancels it when the call ends early. */
  private run(
    request: ModelGenerateRequestMessage,
    context: CallContext,
    subscriber: Subscriber<ModelGenerateResponseMessage>,
  ): () => void {
    let series = modelLabels('unknown');
    const receivedAtMs = Date.now();
    let deadlineMs = context.deadlineEpochMs;
    let done = false;
    const fail = (error: unknown): void => {
      done = true;
      const code = failureCode(isModelgateError(error) ? error.code : ErrorCode.INTERNAL, {
        receivedAtMs,
        deadlineMs,
        nowMs: Date.now(),
      });
      this.metrics.generationRequests.inc({ ...series, status: code.toLowerCase() });
      subscriber.error(
        code === ErrorCode.DEADLINE_EXCEEDED && isModelgateError(error) && error.code !== code
          ? new ModelgateError(code, 'deadline exceeded during generation')
          : error,
      );
    };
    try {
      const model = this.models.requireGenerator(request.model_name, request.model_version || undefined);
      series = modelLabels(model.spec.id);
      // A call that brought no deadline gets the model's (batching.defaultTimeoutMs), for the whole generation.
      if (!Number.isFinite(deadlineMs)) deadlineMs = receivedAtMs + model.spec.batching.defaultTimeoutMs;
      // Ids beyond the vocabulary would fail the model run: prepared facts, else the logits' static dim.
      const logits = model.outputs.find((output) => output.name === 'logits')?.dims[2];
      const vocab =
        model.spec.generation?.vocabSize ?? (logits !== undefined && logits > 0 ? logits : undefined);
      const decoded = decodeGenerateRequest(request, vocab, model.imageDims);
      const base = {
        model_name: model.spec.name,
        model_version: model.spec.version,
        id: request.id ?? '',
        prompt_tokens: decoded.promptIds.length,
      };
      let generated = 0;
      let queueMicros = 0;
      let first = true;
      const hooks = this.config.WORKER_TEST_HOOKS;
      const pause = hooks ? pauseFrom(context.header(TEST_GENERATION_PAUSE_HEADER)) : undefined;
      const cancel = model.generator.generate(
        decoded,
        {
          ...(Number.isFinite(deadlineMs) ? { deadlineEpochMs: deadlineMs } : {}),
          ...(pause ? { pause } : {}),
          ...(hooks && context.header(TEST_CRASH_HEADER) !== undefined ? { crashSession: true } : {}),
        },
        {
          started: (micros) => {
            queueMicros = micros;
          },
          tokens: (tokenIds, finishReason, computeMicros, logprobs) => {
            generated += tokenIds.length;
            subscriber.next({
              ...base,
              token_ids: tokenIds.map(String),
              finish_reason: finishReason ?? '',
              generated_tokens: generated,
              queue_micros: String(first ? queueMicros : 0),
              compute_micros: String(computeMicros),
              ...(logprobs ? { logprobs: logprobs.map(tokenLogprobMessage) } : {}),
            });
            first = false;
            if (finishReason !== undefined) {
              done = true;
              this.metrics.generationRequests.inc({ ...series, status: 'ok' });
              subscriber.complete();
            }
          },
          failed: fail,
        },
      );
      return () => {
        if (!done) cancel();
      };
    } catch (error) {
      fail(error);
      return () => undefined;
    }
  }
}

function pauseFrom(value: string | undefined): LoopPause | undefined {
  if (typeof value !== 'string') return undefined;
  const [afterTokens, untilWaiting] = value.split(':').map(Number);
  if (!Number.isInteger(afterTokens) || !Number.isInteger(untilWaiting)) return undefined;
  return { afterTokens: afterTokens!, untilWaiting: untilWaiting! };
}
