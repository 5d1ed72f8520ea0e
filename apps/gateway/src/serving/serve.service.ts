import {
  type EndpointSpec,
  ErrorCode,
  ModelgateError,
  RESOURCE_NAME_PATTERN,
  isGenerativeTask,
  rawEndpointRefusal,
} from '@modelgate/contracts';
import { type InferRequest, type InferResult, type InferenceClient } from '@modelgate/inference-client';
import { type StageTimings, formatServerTiming } from '@modelgate/observability';
import { type ImageClassificationRequest, type ServeRequest, parseServeRequest } from '@modelgate/processing';
import { type EndpointTable, type ServableModel } from '../endpoints/endpoint-table.js';
import { type EndpointTables } from '../endpoints/endpoint-tables.service.js';
import { type GatewayMetrics, type RoutedTo } from '../metrics/gateway-metrics.js';
import { countsAsModelFailure } from '../metrics/rollout-traffic.js';
import { type RouteChoice, chooseRoute } from './choose-route.js';
import { ConcurrencyGate } from './concurrency-gate.js';
import { encodeText } from './encode-text.js';
import {
  IMAGE_DECODE_CONCURRENCY,
  imageInputs,
  parseImageCall,
  refuseRawImage,
} from './image-classification.js';
import { postProcess } from './post-process.js';
import { requestTimeoutMs } from './request-timeout.js';
import { type ShadowMirror } from './shadow-mirror.js';
import { type InferOptions, callWorker } from './worker-call.js';

/** One /serve call as the serve routes (or an async job) hand it over. */
export interface ServeCall {
  endpoint: string;
  version?: string;
  body: unknown;
  requestId: string;
  stickyKey?: string;
  signal?: AbortSignal;
}

/** The answer and the headers that go with it. */
export interface ServeAnswer {
  body: {
    endpoint: string;
    model: string;
    version: string;
    route: string;
    predictions: unknown[];
  };
  modelId: string;
  serverTiming: string;
  /** Tokens the model read, special tokens included, over every input (after truncation). */
  promptTokens: number;
}

/**
 * The `/serve` calls of generative endpoints (text-generation, image-to-text), whose body and
 * answer are not the encoders' (serving/generation/serve-generation.ts implements it).
 */
export interface GenerationCalls {
  /**
   * Checks a call of `endpoint` without running it (an asynchronous one cannot stream), a text
   * prompt against the limits of `model`, the model a route picks now.
   */
  validate(call: ServeCall, endpoint: EndpointSpec, model: ServableModel): void;
  /** Serves a call of `endpoint` as one JSON answer. */
  serve(call: ServeCall, endpoint: EndpointSpec, onRouted?: (routed: RoutedTo) => void): Promise<ServeAnswer>;
}

/**
 * POST /serve/:endpoint: validate → pick a route → tokenize → ModelInfer on a worker →
 * post-process, timing each stage for Server-Timing and the stage histogram.
 */
export class ServeService {
  constructor(
    private readonly tables: EndpointTables,
    private readonly client: InferenceClient,
    private readonly metrics: GatewayMetrics,
    private readonly shadows: ShadowMirror,
    private readonly generation?: GenerationCalls,
    /** Image decodes of this process at once (serving/concurrency-gate.ts), shared with generation's. */
    private readonly imageDecodes = new ConcurrencyGate(IMAGE_DECODE_CONCURRENCY),
  ) {}

  /**
   * Checks a call as far as it can be checked without running it (endpoint, version, body, and a
   * text's tokenization on the model a route picks now), so an asynchronous request with bad input
   * is refused at once instead of failing later. An image is decoded only when the job runs.
   */
  validate(call: ServeCall): void {
    const table = this.requireTable();
    const endpoint = requireEndpoint(table, call.endpoint);
    refuseRawImage(endpoint, call.body);
    // The version first, on every task: a generation job for a version the endpoint lacks was queued.
    const { model } = this.chooseModel(table, endpoint, call);
    refuseRawImage(endpoint, call.body, model);
    if (isGenerativeTask(endpoint.task)) {
      this.requireGeneration().validate(call, endpoint, model);
      return;
    }
    const request = parseCall(call, endpoint, model);
    if (!('image' in request)) encodeText(model, endpoint, request);
  }

  /**
   * Serves `call`. `onRouted` hears the model and route the call goes to once the route is chosen
   * and the body is valid for its model: what fails after that is labelled with that model in the
   * request metrics; what fails before (no config, unknown endpoint or version, bad body) is not.
   */
  async serve(call: ServeCall, onRouted?: (routed: RoutedTo) => void): Promise<ServeAnswer> {
    const started = performance.now();
    const table = this.requireTable();
    const endpoint = requireEndpoint(table, call.endpoint);
    refuseRawImage(endpoint, call.body);
    if (isGenerativeTask(endpoint.task)) return this.requireGeneration().serve(call, endpoint, onRouted);
    const choice = this.chooseModel(table, endpoint, call);
    refuseRawImage(endpoint, call.body, choice.model);
    // The chosen model's own numbers, failures included, for rollouts (metrics/rollout-traffic.ts).
    const record = (failed: boolean, until: number) =>
      this.metrics.traffic.recordServed(
        endpoint.name,
        choice.model.spec.id,
        failed,
        (until - started) / 1000,
      );
    try {
      const answer = await this.serveChoice(call, endpoint, choice, started, onRouted);
      record(false, answer.doneAt);
      return answer.answer;
    } catch (error) {
      record(countsAsModelFailure(error), performance.now());
      throw error;
    }
  }

  /** Runs the call on the chosen route, then starts its mirrors. */
  private async serveChoice(
    call: ServeCall,
    endpoint: EndpointSpec,
    { model, role, shadows }: { model: ServableModel; role: string; shadows: ServableModel[] },
    started: number,
    onRouted: ((routed: RoutedTo) => void) | undefined,
  ): Promise<{ answer: ServeAnswer; doneAt: number }> {
    const spec = model.spec;
    const deadlineEpochMs = Date.now() + requestTimeoutMs(endpoint, spec);
    const request = parseCall(call, endpoint, model);
    onRouted?.({ modelId: spec.id, route: role });
    const { predictions, result, tokenizedAt, inferredAt, promptTokens } = await this.predict(
      model,
      endpoint,
      request,
      {
        deadlineEpochMs,
        requestId: call.requestId,
        ...(call.signal ? { signal: call.signal } : {}),
      },
    );
    const done = performance.now();

    const tokenizeMs = tokenizedAt - started;
    const waitedMs = inferredAt - tokenizedAt;
    const workerQueueMs = result.queueMs ?? 0;
    const queueMs = Math.min(workerQueueMs, waitedMs);
    const inferMs = Math.max(waitedMs - workerQueueMs, 0);
    const postMs = done - inferredAt;
    this.metrics.recordStages(tokenizeMs, queueMs, inferMs, postMs);
    const stages: StageTimings = [
      ['tokenize', tokenizeMs],
      ['queue', queueMs],
      ['infer', inferMs],
      ['post', postMs],
      ['total', done - started],
    ];
    // Mirrors start once this answer is on its way; they never touch it.
    for (const shadow of shadows) {
      this.shadows.mirror({
        endpoint: endpoint.name,
        model: shadow.spec.id,
        task: spec.task,
        shadowTask: shadow.spec.task,
        primary: predictions,
        predict: () =>
          this.predict(shadow, endpoint, request, {
            deadlineEpochMs: Date.now() + requestTimeoutMs(endpoint, shadow.spec),
            requestId: call.requestId,
          }).then((answer) => answer.predictions),
      });
    }
    const answer: ServeAnswer = {
      body: {
        endpoint: endpoint.name,
        model: spec.name,
        version: spec.version,
        route: role,
        predictions,
      },
      modelId: spec.id,
      serverTiming: formatServerTiming(stages),
      promptTokens,
    };
    return { answer, doneAt: done };
  }

  /**
   * Tokenizes `request` (an image request: decodes and preprocesses its image) for `model`, runs it
   * on a worker and post-processes the answer.
   */
  private async predict(
    model: ServableModel,
    endpoint: EndpointSpec,
    request: ServeRequest | ImageClassificationRequest,
    options: InferOptions,
  ): Promise<Prediction> {
    if ('image' in request) {
      const inputs = await imageInputs(model, endpoint, request.image, this.imageDecodes);
      const preparedAt = performance.now();
      const result = await this.infer(model, inputs, options);
      const inferredAt = performance.now();
      const topK = request.topK === undefined ? {} : { topK: request.topK };
      const predictions = postProcess(model, endpoint, result.outputs, {}, { texts: [], ...topK });
      return { predictions, result, tokenizedAt: preparedAt, inferredAt, promptTokens: 0 };
    }
    const { questions, encoded } = encodeText(model, endpoint, request);
    const tokenizedAt = performance.now();
    const inputs = model.inputNames.map((name) => {
      const tensor = encoded.tensors[name];
      if (!tensor) throw new ModelgateError(ErrorCode.INTERNAL, `input ${name} was not built`);
      return { name, datatype: tensor.datatype, dims: tensor.dims, data: tensor.data };
    });
    const result = await this.infer(model, inputs, options);
    const inferredAt = performance.now();
    const predictions = questions
      ? questions.answer(result.outputs)
      : postProcess(model, endpoint, result.outputs, encoded.tensors, request);
    const promptTokens = encoded.lengths.reduce((sum, length) => sum + length, 0);
    return { predictions, result, tokenizedAt, inferredAt, promptTokens };
  }

  /** ModelInfer of `inputs` on a worker of `model`'s group. */
  private infer(
    model: ServableModel,
    inputs: InferRequest['inputs'],
    options: InferOptions,
  ): Promise<InferResult> {
    return callWorker(this.client, model, inputs, options);
  }

  /** The route a call resolves to (for metrics labels even when the call then fails), and the shadows it mirrors to. */
  private chooseModel(table: EndpointTable, endpoint: EndpointSpec, call: ServeCall): RouteChoice {
    const choice = chooseRoute(table, endpoint, call);
    // A route the registry now refuses, met in a static config file or stored before the refusal.
    const refusal = endpoint.task === 'raw' ? rawEndpointRefusal(choice.model.spec.task) : undefined;
    if (refusal !== undefined) {
      throw new ModelgateError(
        ErrorCode.UNAVAILABLE,
        `endpoint '${endpoint.name}' routes to model ${choice.model.spec.id}: ${refusal}`,
      );
    }
    return choice;
  }

  private requireGeneration(): GenerationCalls {
    if (!this.generation) throw new ModelgateError(ErrorCode.INTERNAL, 'generation is not wired');
    return this.generation;
  }

  private requireTable(): EndpointTable {
    const table = this.tables.current;
    if (!table) throw new ModelgateError(ErrorCode.UNAVAILABLE, 'the gateway has no configuration yet');
    return table;
  }
}

/** What one model answered a call, and when each stage ended (`tokenizedAt`: inputs built). */
interface Prediction {
  predictions: unknown[];
  result: InferResult;
  tokenizedAt: number;
  inferredAt: number;
  promptTokens: number;
}

/** The validated body of `call` for `model`: an image request on image-classification, else text. */
function parseCall(
  call: ServeCall,
  endpoint: EndpointSpec,
  model: ServableModel,
): ServeRequest | ImageClassificationRequest {
  if (model.spec.task === 'image-classification') return parseImageCall(endpoint, call.body);
  return parseServeRequest(call.body, endpoint.preprocessing, { task: model.spec.task });
}

/** The endpoint `name`, after checking the name's shape before any lookup (no `..%2f`; 404 for anything else). */
export function requireEndpoint(table: EndpointTable, name: string): EndpointSpec {
  const endpoint = RESOURCE_NAME_PATTERN.test(name) ? table.endpoints.get(name) : undefined;
  if (!endpoint) throw new ModelgateError(ErrorCode.NOT_FOUND, `unknown endpoint '${name.slice(0, 80)}'`);
  return endpoint;
}
