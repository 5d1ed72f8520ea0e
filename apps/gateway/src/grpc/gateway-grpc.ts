/**
 * The gateway's public Open Inference Protocol gRPC face (GATEWAY_GRPC_PORT): the same
 * GRPCInferenceService as the workers'. ModelInfer with BYTES inputs to an endpoint goes the /serve
 * way (routes, canaries, shadows, deadlines; grpc/oip-text.ts says how inputs are named); other
 * tensors pass through to the model of that name as on /v2/models/{model}/infer. ModelStreamInfer
 * (Triton's) streams a text-generation endpoint's deltas. Errors are gRPC statuses from the one
 * table (GRPC_STATUS_BY_CODE); a stream's failed request is an error_message and the stream goes on.
 * Bytes that are no message of the method's request type are INVALID_ARGUMENT (unreadable-request.ts).
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import {
  type EndpointSpec,
  type GrpcStatusError,
  INFERENCE_PROTO_PATH,
  INFERENCE_SERVICE_NAME,
  MODELGATE_VERSION,
  OIP_SERVER_LOADER_OPTIONS,
  type OipInferRequest,
  encodeTensor,
  toGrpcStatusError,
} from '@modelgate/contracts';
import { type InferenceClient } from '@modelgate/inference-client';
import { type Logger } from '@modelgate/observability';
import { type EndpointTables } from '../endpoints/endpoint-tables.service.js';
import { workerGroupFor } from '../endpoints/worker-discovery.js';
import { decideReadiness } from '../health/readiness.js';
import { inferRaw, rawModel } from '../kserve/raw-infer.js';
import { loadedVersions } from '../kserve/v2-models.js';
import { type GatewayLifecycle } from '../lifecycle/gateway-lifecycle.js';
import { type GatewayMetrics, type RoutedTo } from '../metrics/gateway-metrics.js';
import { type GenerationService } from '../serving/generation/generation.service.js';
import { type ServeService } from '../serving/serve.service.js';
import { stickyRouteKey } from '../serving/sticky-key.js';
import {
  type Headers,
  type InferResponse,
  clipStatusMessage,
  headersOf,
  rawInputs,
  rawTimeoutMs,
  requestIdOf,
  stringParam,
} from './oip-calls.js';
import { serveInferStream } from './oip-stream.js';
import { type UnreadableRequest, readableRequest, withUnreadableRequests } from './unreadable-request.js';
import {
  PREDICTIONS_OUTPUT,
  TEXT_INPUTS,
  isTextRequest,
  predictionsOutput,
  textServeBody,
} from './oip-text.js';

/** What the face serves with. */
export interface GatewayGrpcDeps {
  tables: EndpointTables;
  client: InferenceClient;
  serve: ServeService;
  generation: GenerationService;
  lifecycle: GatewayLifecycle;
  metrics: GatewayMetrics;
  logger: Logger;
}

/** The face: handlers over the gateway's services, and the grpc-js server that binds them. */
export class GatewayGrpcFace {
  private readonly server = new grpc.Server({
    'grpc.max_receive_message_length': 256 * 1024 * 1024,
    'grpc.max_send_message_length': 256 * 1024 * 1024,
  });

  constructor(private readonly deps: GatewayGrpcDeps) {
    const definition = protoLoader.loadSync(INFERENCE_PROTO_PATH, OIP_SERVER_LOADER_OPTIONS);
    const service = withUnreadableRequests(definition[INFERENCE_SERVICE_NAME] as grpc.ServiceDefinition);
    this.server.addService(service, {
      ServerLive: this.unary(() => ({ live: true })),
      ServerReady: this.unary(() => ({
        ready: decideReadiness({
          revision: this.deps.tables.current?.revision,
          shuttingDown: this.deps.lifecycle.shuttingDown,
        }).ready,
      })),
      ServerMetadata: this.unary(() => ({
        name: 'modelgate',
        version: MODELGATE_VERSION,
        extensions: ['modelgate_text', 'model_stream_infer'],
      })),
      ModelReady: this.unary((request: { name: string; version?: string }) => this.modelReady(request)),
      ModelMetadata: this.unary((request: { name: string; version?: string }) => this.modelMetadata(request)),
      ModelInfer: (
        call: grpc.ServerUnaryCall<OipInferRequest | UnreadableRequest, InferResponse>,
        callback: grpc.sendUnaryData<InferResponse>,
      ) => {
        const abort = new AbortController();
        call.on('cancelled', () => abort.abort());
        Promise.resolve()
          .then(() => this.infer(readableRequest(call.request), headersOf(call.metadata), abort.signal))
          .then(
            (response) => callback(null, response),
            (error: unknown) => callback(this.status(error)),
          );
      },
      ModelStreamInfer: (call: grpc.ServerDuplexStream<OipInferRequest | UnreadableRequest, unknown>) =>
        this.streamInfer(call),
    });
  }

  /** Binds `host:port` and starts serving; resolves with the bound port (0 picks a free one). */
  async start(host: string, port: number): Promise<number> {
    const bound = await new Promise<number>((resolve, reject) => {
      this.server.bindAsync(
        `${host.includes(':') ? `[${host}]` : host}:${port}`,
        grpc.ServerCredentials.createInsecure(),
        (error, actual) => (error ? reject(error) : resolve(actual)),
      );
    });
    return bound;
  }

  /** Stops taking calls and waits for running ones up to `graceMs`, then ends them. */
  async stop(graceMs: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, graceMs);
      timer.unref();
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private unary<Q, R>(handle: (request: Q) => R | Promise<R>) {
    return (call: grpc.ServerUnaryCall<Q | UnreadableRequest, R>, callback: grpc.sendUnaryData<R>): void => {
      Promise.resolve()
        .then(() => handle(readableRequest(call.request)))
        .then(
          (response) => callback(null, response),
          (error: unknown) => callback(this.status(error)),
        );
    };
  }

  private status(error: unknown): GrpcStatusError {
    const status = toGrpcStatusError(error, (unknown) =>
      this.deps.logger.error({ err: unknown }, 'unexpected error in a gRPC call'),
    );
    return { ...status, message: clipStatusMessage(status.message) };
  }

  private endpoint(name: string): EndpointSpec | undefined {
    return this.deps.tables.current?.endpoints.get(name);
  }

  private async modelReady(request: { name: string; version?: string }): Promise<{ ready: boolean }> {
    const endpoint = this.endpoint(request.name);
    const primary = endpoint?.routes.find((route) => route.role === 'primary') ?? endpoint?.routes[0];
    const [name, version] =
      endpoint && primary && !request.version
        ? (primary.model.split(':') as [string, string])
        : [request.name, request.version || undefined];
    const spec = rawModel(this.deps.tables, name, version);
    return {
      ready: await this.deps.client.hasReadyWorker(
        workerGroupFor(this.deps.client, spec),
        spec.name,
        spec.version,
      ),
    };
  }

  private modelMetadata(request: { name: string; version?: string }) {
    const endpoint = this.endpoint(request.name);
    const inputs = endpoint ? TEXT_INPUTS[endpoint.task] : undefined;
    if (endpoint && inputs) {
      return {
        name: endpoint.name,
        versions: [...new Set(endpoint.routes.map((route) => route.model.split(':')[1] ?? ''))],
        platform: 'modelgate_endpoint',
        inputs: inputs.map((input) => ({
          name: input.name,
          datatype: 'BYTES',
          shape: [input.one === true ? 1 : -1],
        })),
        outputs: [{ name: PREDICTIONS_OUTPUT, datatype: 'BYTES', shape: [-1] }],
      };
    }
    const spec = rawModel(this.deps.tables, request.name, request.version || undefined);
    return {
      name: spec.name,
      versions: request.version ? [spec.version] : loadedVersions(this.deps.tables.current, spec.name),
      platform: 'onnxruntime_onnx',
      inputs: spec.inputs.map(({ name, datatype, dims }) => ({ name, datatype, shape: dims })),
      outputs: spec.outputs.map(({ name, datatype, dims }) => ({ name, datatype, shape: dims })),
    };
  }

  /** One ModelInfer: text to an endpoint, or raw tensors to a model. */
  private async infer(
    request: OipInferRequest,
    headers: Headers,
    signal: AbortSignal,
  ): Promise<InferResponse> {
    const endpoint = this.endpoint(request.model_name);
    if (endpoint && isTextRequest(request)) return this.inferText(request, endpoint, headers, signal);
    const spec = rawModel(this.deps.tables, request.model_name, request.model_version || undefined);
    const timeoutMs = rawTimeoutMs(request);
    const result = await inferRaw(this.deps.client, spec, {
      ...(request.id ? { id: request.id } : {}),
      inputs: rawInputs(request),
      ...(request.outputs && request.outputs.length > 0
        ? { outputs: request.outputs.map((output) => output.name) }
        : {}),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      signal,
    });
    const outputs = Object.entries(result.outputs);
    return {
      model_name: spec.name,
      model_version: spec.version,
      id: request.id ?? '',
      outputs: outputs.map(([name, tensor]) => ({
        name,
        datatype: tensor.datatype,
        shape: [...tensor.dims],
      })),
      raw_output_contents: outputs.map(([name, tensor]) =>
        encodeTensor(tensor.datatype, tensor.dims, tensor.data as never, name),
      ),
    };
  }

  private async inferText(
    request: OipInferRequest,
    endpoint: EndpointSpec,
    headers: Headers,
    signal: AbortSignal,
  ): Promise<InferResponse> {
    const started = performance.now();
    let routed: RoutedTo | undefined;
    try {
      const body = textServeBody(request, endpoint.task, endpoint.name);
      const stickyKey = stickyRouteKey(headers, endpoint);
      const answer = await this.deps.serve.serve(
        {
          endpoint: endpoint.name,
          ...(request.model_version ? { version: request.model_version } : {}),
          body,
          requestId: requestIdOf(headers),
          signal,
          ...(stickyKey === undefined ? {} : { stickyKey }),
        },
        (to) => {
          routed = to;
        },
      );
      this.deps.metrics.recordRequest(endpoint.name, answer.modelId, answer.body.route, 200, started);
      const { output, raw } = predictionsOutput(answer.body.predictions);
      return {
        model_name: endpoint.name,
        model_version: answer.body.version,
        id: request.id ?? '',
        parameters: {
          modelgate_model: stringParam(answer.modelId),
          modelgate_route: stringParam(answer.body.route),
        },
        outputs: [output],
        raw_output_contents: [raw],
      };
    } catch (error) {
      this.deps.metrics.recordError(endpoint.name, error, started, routed);
      throw error;
    }
  }

  private streamInfer(call: grpc.ServerDuplexStream<OipInferRequest | UnreadableRequest, unknown>): void {
    serveInferStream(call, {
      infer: (request, headers, signal) => this.infer(request, headers, signal),
      endpoint: (name) => this.endpoint(name),
      generation: this.deps.generation,
      status: (error) => this.status(error),
    });
  }
}
