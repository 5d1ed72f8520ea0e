import {
  type EndpointSpec,
  ErrorCode,
  ModelgateError,
  RESOURCE_NAME_PATTERN,
  isGenerativeTask,
  rawEndpointRefusal,
} from '@modelgate/contracts';
import { type InferResult, type InferenceClient } from '@modelgate/inference-client';
import { type StageTimings, formatServerTiming } from '@modelgate/observability';
import { type EndpointTable, type ServableModel } from '../endpoints/endpoint-table.js';
import { type EndpointTables } from '../endpoints/endpoint-tables.service.js';
import { type GatewayMetrics, type RoutedTo } from '../metrics/gateway-metrics.js';
import { countsAsModelFailure } from '../metrics/rollout-traffic.js';
import { type RouteChoice, chooseRoute } from './choose-route.js';
import { ConcurrencyGate } from './concurrency-gate.js';
import { IMAGE_DECODE_CONCURRENCY, refuseRawImage } from './image-input.js';
import { requestTimeoutMs } from './request-timeout.js';
import { type ShadowMirror } from './shadow-mirror.js';
import { type TaskCall, type TaskTools } from './tasks/task-module.js';
import { taskModule } from './tasks/task-table.js';
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
 * POST /serve/:endpoint, one straight line for every task: pick a route → parse the body with the
 * routed model's task module → its rows (tokenize, or decode an image) → ModelInfer on a worker →
 * the module's answer → mirrors, timing each stage for Server-Timing and the stage histogram.
 */
export class ServeService {
  private readonly tools: TaskTools;

  constructor(
    private readonly tables: EndpointTables,
    private readonly client: InferenceClient,
    private readonly metrics: GatewayMetrics,
    private readonly shadows: ShadowMirror,
    private readonly generation?: GenerationCalls,
    /** Image decodes of this process at once (serving/concurrency-gate.ts), shared with generation's. */
    imageDecodes = new ConcurrencyGate(IMAGE_DECODE_CONCURRENCY),
  ) {
    this.tools = { imageDecodes };
  }

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
    parseCall(call, endpoint, model).check(model);
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
    const parsed = parseCall(call, endpoint, model);
    onRouted?.({ modelId: spec.id, route: role });
    const { predictions, result, tokenizedAt, inferredAt, promptTokens } = await this.predict(model, parsed, {
      deadlineEpochMs,
      requestId: call.requestId,
      ...(call.signal ? { signal: call.signal } : {}),
    });
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
        // A shadow of another task (behind a raw endpoint) reads the body as its own task does.
        predict: () =>
          this.predict(shadow, shadow.spec.task === spec.task ? parsed : parseCall(call, endpoint, shadow), {
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

  /** The rows of `model` for a parsed call, run on a worker of its group, read back by the call's task. */
  private async predict(model: ServableModel, parsed: TaskCall, options: InferOptions): Promise<Prediction> {
    const rows = await parsed.rows(model, this.tools);
    const tokenizedAt = performance.now();
    const result: InferResult = await callWorker(this.client, model, rows.inputs, options);
    const inferredAt = performance.now();
    const predictions = rows.answer(result.outputs);
    return { predictions, result, tokenizedAt, inferredAt, promptTokens: rows.promptTokens };
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

/** What one model answered a call, and when each stage ended (`tokenizedAt`: rows built). */
interface Prediction {
  predictions: unknown[];
  result: InferResult;
  tokenizedAt: number;
  inferredAt: number;
  promptTokens: number;
}

/** The body of `call`, validated by the task module of `model` (a raw endpoint answers as its model does). */
function parseCall(call: ServeCall, endpoint: EndpointSpec, model: ServableModel): TaskCall {
  return taskModule(model.spec.task).parse(call.body, endpoint, model);
}

/** The endpoint `name`, after checking the name's shape before any lookup (no `..%2f`; 404 for anything else). */
export function requireEndpoint(table: EndpointTable, name: string): EndpointSpec {
  const endpoint = RESOURCE_NAME_PATTERN.test(name) ? table.endpoints.get(name) : undefined;
  if (!endpoint) throw new ModelgateError(ErrorCode.NOT_FOUND, `unknown endpoint '${name.slice(0, 80)}'`);
  return endpoint;
}
