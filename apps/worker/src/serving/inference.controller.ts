import { Controller, Inject, UseFilters } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import { type Metadata, type ServerUnaryCall } from '@grpc/grpc-js';
import {
  ErrorCode,
  MODELGATE_VERSION,
  ModelgateError,
  type TensorDatatype,
  encodeTensor,
  isModelgateError,
  toFailureReason,
} from '@modelgate/contracts';
import { CancelSource } from '@modelgate/batching';
import { modelLabels } from '@modelgate/observability';
import { GrpcExceptionFilter } from './grpc-exception.filter.js';
import { ModelManager } from '../model-loading/model-manager.js';
import { WorkerMetrics } from '../metrics/worker-metrics.js';
import { type WorkerConfig } from '../worker.config.js';
import { WORKER_CONFIG } from '../worker.tokens.js';
import { type CallContext, grpcCallContext } from './call-context.js';
import { decodeInferRequest } from './decode-infer-request.js';
import { failureCode } from './failure-code.js';
import {
  type OipInferRequest as ModelInferRequestMessage,
  type OipInferResponse as ModelInferResponseMessage,
  type OipModelMetadataResponse as ModelMetadataResponseMessage,
} from '@modelgate/contracts';

/** Metadata key of the batch-holding test hook (honoured only with WORKER_TEST_HOOKS). */
export const TEST_HOLD_HEADER = 'x-modelgate-test-hold-ms';
/** Metadata key of the session-crash test hook (honoured only with WORKER_TEST_HOOKS). */
export const TEST_CRASH_HEADER = 'x-modelgate-test-crash-session';

const SERVER_NAME = 'modelgate-worker';
const SERVER_VERSION = MODELGATE_VERSION;
const PLATFORM = 'onnxruntime_onnx';

/** The Open Inference Protocol v2 service (inference.GRPCInferenceService). */
@Controller()
@UseFilters(GrpcExceptionFilter)
export class InferenceController {
  constructor(
    private readonly models: ModelManager,
    private readonly metrics: WorkerMetrics,
    @Inject(WORKER_CONFIG) private readonly config: WorkerConfig,
  ) {}

  @GrpcMethod('GRPCInferenceService', 'ServerLive')
  serverLive(): { live: boolean } {
    return { live: true };
  }

  @GrpcMethod('GRPCInferenceService', 'ServerReady')
  serverReady(): { ready: boolean } {
    return { ready: this.models.ready };
  }

  @GrpcMethod('GRPCInferenceService', 'ModelReady')
  modelReady(request: { name: string; version?: string }): { ready: boolean } {
    const model = this.models.find(request.name, request.version || undefined);
    return { ready: !this.models.isDraining && model?.state === 'READY' };
  }

  @GrpcMethod('GRPCInferenceService', 'ServerMetadata')
  serverMetadata(): { name: string; version: string; extensions: string[] } {
    return { name: SERVER_NAME, version: SERVER_VERSION, extensions: ['modelgate_generate'] };
  }

  @GrpcMethod('GRPCInferenceService', 'ModelMetadata')
  modelMetadata(request: { name: string; version?: string }): ModelMetadataResponseMessage {
    const model = this.models.find(request.name, request.version || undefined);
    if (!model) throw notFound(request.name, request.version);
    const versions = Object.keys(this.models.states())
      .filter((id) => id.startsWith(`${request.name}:`))
      .map((id) => id.slice(request.name.length + 1));
    const loaded = model.inputs.length > 0;
    return {
      name: model.spec.name,
      versions,
      platform: PLATFORM,
      inputs: (loaded ? model.inputs : model.spec.inputs).map(toMetadata),
      outputs: (loaded ? model.outputs : model.spec.outputs).map(toMetadata),
    };
  }

  @GrpcMethod('GRPCInferenceService', 'ModelInfer')
  modelInfer(
    request: ModelInferRequestMessage,
    metadata: Metadata,
    call: ServerUnaryCall<unknown, unknown>,
  ): Promise<ModelInferResponseMessage> {
    return this.infer(request, grpcCallContext(metadata, call));
  }

  /** ModelInfer for any transport: gRPC above, the in-process one (serving/local-endpoint.ts). */
  async infer(request: ModelInferRequestMessage, context: CallContext): Promise<ModelInferResponseMessage> {
    // A model this worker does not serve is counted as 'unknown': request names would make the
    // label set as large as whatever clients send.
    let series = modelLabels('unknown');
    const receivedAtMs = Date.now();
    // Where the transport ends the call at its deadline itself (grpc-js), the runner need not.
    const transportDeadlineMs = context.endsAtDeadline ? context.deadlineEpochMs : Infinity;
    let deadlineMs = context.deadlineEpochMs;
    try {
      const model = this.models.require(request.model_name, request.model_version || undefined);
      series = modelLabels(model.spec.id);
      // A call that brought no deadline gets the model's (batching.defaultTimeoutMs), queued or running.
      if (!Number.isFinite(deadlineMs)) deadlineMs = receivedAtMs + model.spec.batching.defaultTimeoutMs;
      if (this.config.WORKER_TEST_HOOKS && this.config.WORKER_TEST_FAILING_MODELS.includes(model.spec.id)) {
        throw new ModelgateError(
          ErrorCode.INTERNAL,
          `test hook: model ${model.spec.id} fails every inference`,
        );
      }
      const decoded = decodeInferRequest(request, model.inputs, model.outputs);
      // Triton's `timeout` parameter limits the request as a gRPC deadline does: the earlier wins.
      if (decoded.timeoutMicros !== undefined)
        deadlineMs = Math.min(deadlineMs, receivedAtMs + decoded.timeoutMicros / 1000);
      // grpc-js emits 'cancelled' on every call once it ends, answered or not: only a cancel that
      // comes while the request still waits may abort it. A CancelSource, not an AbortController:
      // Node makes an AbortSignal for about 3 µs, and every call needs one.
      const cancelled = new CancelSource();
      let settled = false;
      context.onCancel(() => {
        if (!settled) cancelled.abort();
      });
      const result = await model.runner
        .infer(decoded.inputs, decoded.rows, decoded.outputNames, {
          signal: cancelled.signal,
          ...(Number.isFinite(deadlineMs) ? { deadlineEpochMs: deadlineMs } : {}),
          // grpc-js ends a call at its own deadline; an earlier one of ours is answered by the runner.
          answerAtDeadline: deadlineMs < transportDeadlineMs,
          ...(this.config.WORKER_TEST_HOOKS
            ? {
                holdMs: holdFrom(context.header(TEST_HOLD_HEADER)),
                crashSession: context.header(TEST_CRASH_HEADER) !== undefined,
              }
            : {}),
        })
        .finally(() => {
          settled = true;
        });
      const response: ModelInferResponseMessage = {
        model_name: model.spec.name,
        model_version: model.spec.version,
        id: request.id ?? '',
        parameters: {
          // Numbers, not strings: protobufjs would parse a string back into a Long.
          queue_time_us: { int64_param: result.queueMicros },
          compute_time_us: { int64_param: result.computeMicros },
        },
        outputs: [],
        raw_output_contents: [],
      };
      for (const [name, tensor] of Object.entries(result.outputs)) {
        response.outputs.push({ name, datatype: tensor.datatype, shape: tensor.dims });
        response.raw_output_contents.push(
          encodeTensor(tensor.datatype as TensorDatatype, tensor.dims, tensor.data as never, name),
        );
      }
      this.metrics.inferenceRequests.inc({ ...series, status: 'ok' });
      return response;
    } catch (error) {
      const code = failureCode(isModelgateError(error) ? error.code : ErrorCode.INTERNAL, {
        receivedAtMs,
        deadlineMs,
        nowMs: Date.now(),
      });
      this.metrics.inferenceRequests.inc({ ...series, status: code.toLowerCase() });
      this.metrics.inferenceFailures.inc({ ...series, reason: toFailureReason(code) });
      throw error;
    }
  }
}

function toMetadata(tensor: { name: string; datatype: string; dims: readonly number[] }) {
  return { name: tensor.name, datatype: tensor.datatype, shape: [...tensor.dims] };
}

function holdFrom(header: string | undefined): number {
  const value = Number(header ?? 0);
  return Number.isFinite(value) && value > 0 ? Math.min(value, 60_000) : 0;
}

function notFound(name: string, version?: string): ModelgateError {
  return new ModelgateError(
    ErrorCode.NOT_FOUND,
    `model '${version ? `${name}:${version}` : name}' is not served here`,
  );
}
