import { type EndpointSpec, ErrorCode, ModelgateError, isGenerativeTask } from '@modelgate/contracts';
import { type GenerationParams, applyDecodingDefaults } from '@modelgate/generation';
import { type InferenceClient } from '@modelgate/inference-client';
import { checkTextLengths } from '@modelgate/processing';
import { resolveRequestId } from '@modelgate/observability';
import { type EndpointTable, type ServableModel, servableModel } from '../../endpoints/endpoint-table.js';
import { type EndpointTables } from '../../endpoints/endpoint-tables.service.js';
import { workerGroupFor } from '../../endpoints/worker-discovery.js';
import { findV2Model } from '../../kserve/v2-models.js';
import { type GatewayMetrics, type RoutedTo } from '../../metrics/gateway-metrics.js';
import { chooseRoute } from '../choose-route.js';
import { ConcurrencyGate } from '../concurrency-gate.js';
import { IMAGE_DECODE_CONCURRENCY } from '../image-input.js';
import { generationTimeoutMs } from '../request-timeout.js';
import { requireEndpoint } from '../serve.service.js';
import { publicWorkerError } from '../worker-call.js';
import { type ShadowMirror } from '../shadow-mirror.js';
import { stickyRouteKey } from '../sticky-key.js';
import { type GenerationEnd, type GenerationEvent, generationEvents } from './generation-events.js';
import { type GenerationInput, prepareGeneration, taskOfInput } from './generation-input.js';

export { type GenerationDelta, type GenerationEnd, type GenerationEvent } from './generation-events.js';
export { type GenerationInput } from './generation-input.js';

/** A started generation: where it was routed, and its events. */
export interface GenerationStream {
  /** Model name and version that runs it. */
  model: string;
  version: string;
  /** primary, canary or pinned for an endpoint; `model` for a model-addressed call. */
  route: string;
  /** The endpoint, when the call named one. */
  endpoint: string | undefined;
  promptTokens: number;
  /** Deltas, then one `end`; iterate it once (see generation-events.ts). */
  events: AsyncIterable<GenerationEvent>;
}

/** What a generation call targets: an endpoint (routed like /serve) or a model (like /v2/models). */
export type GenerationTarget = { endpoint: string; version?: string } | { model: string; version?: string };

/** Per-call options of `GenerationService.start`. */
export interface GenerationCallOptions {
  /** Aborts when the client went away: cancels the worker call. */
  signal: AbortSignal;
  /** The HTTP request's headers: x-request-id and the endpoint's sticky route header are read. */
  headers: Record<string, string | string[] | undefined>;
  /** The request id (the gateway's, echoed to the client); default: from x-request-id, else a new one. */
  requestId?: string;
  /** Sticky route key, instead of the endpoint's sticky header (async jobs carry it). */
  stickyKey?: string;
  /** Hears the model and route once chosen, before anything that can fail on that model. */
  onRouted?: (routed: RoutedTo) => void;
}

/** The model a call resolved to. */
interface Resolved {
  model: ServableModel;
  route: string;
  endpoint: EndpointSpec | undefined;
  shadows: ServableModel[];
}

/**
 * Generation for every HTTP surface (/serve, Triton's generate, OpenAI's completions): routing,
 * tokenization (image-to-text: image preprocessing), limits, the worker's ModelGenerate stream,
 * incremental detokenization, stop strings, metrics, and shadow mirrors of endpoint calls.
 */
export class GenerationService {
  constructor(
    private readonly tables: EndpointTables,
    private readonly client: InferenceClient,
    private readonly metrics: GatewayMetrics,
    private readonly shadows: ShadowMirror,
    /** Image decodes of this process at once, shared with the serve service's. */
    private readonly imageDecodes = new ConcurrencyGate(IMAGE_DECODE_CONCURRENCY),
  ) {}

  /**
   * Routes (endpoint: primary/canary/pinned like /serve; model: Triton's /v2/models/<model>,
   * optional version), prepares `input` (a prompt: tokenized; an image: preprocessed, the decoder
   * starting from its start token), starts the worker call and resolves once the first
   * tokens are in. Throws a ModelgateError BEFORE returning for everything known up front (unknown
   * endpoint/model 404, a model or endpoint of another task than the input's 400, a bad image
   * 400/413/415, a prompt over the endpoint's
   * maxInputChars 413, prompt + max_new_tokens over n_positions 422, queue full 429, no worker or
   * no tokenizer on this gateway 503, deadline 504). Aborting `signal` (client went away)
   * cancels the worker call; iterating to the end or breaking out also frees the worker slot.
   * Records TTFT / ITL / tokens metrics. The deadline (endpoint timeoutMs, else the model's
   * defaultTimeoutMs plus GENERATION_MS_PER_TOKEN per token of max_new_tokens) bounds the whole generation.
   */
  async start(
    target: GenerationTarget,
    input: GenerationInput,
    params: GenerationParams,
    options: GenerationCallOptions,
  ): Promise<GenerationStream> {
    const startedAt = performance.now();
    const resolved = this.resolve(target, options, taskOfInput(input));
    // Every surface gets the endpoint's prompt limit (/serve also checks it on the body); a chat's on each message.
    const maxInputChars = resolved.endpoint?.preprocessing.maxInputChars;
    if (maxInputChars !== undefined && input.kind === 'text') {
      checkTextLengths([input.prompt], 'text', false, maxInputChars);
    }
    if (maxInputChars !== undefined && input.kind === 'chat') {
      const contents = input.messages.map((message) => message.content);
      checkTextLengths(contents, 'messages', true, maxInputChars);
    }
    return this.run(resolved, input, params, options, startedAt);
  }

  /** Starts the generation on the model `resolved` names. */
  private async run(
    resolved: Resolved,
    asked: GenerationInput,
    askedParams: GenerationParams,
    options: GenerationCallOptions,
    startedAt: number,
  ): Promise<GenerationStream> {
    const { model, route, endpoint } = resolved;
    const spec = model.spec;
    options.onRouted?.({ modelId: spec.id, route });
    // Under what the request asked for: the endpoint's decoding defaults, then the model's
    // generation_config.json (a shadow's, its own model's).
    const defaults =
      asked.kind === 'image' ? undefined : { ...spec.generation?.defaults, ...endpoint?.generation };
    const params = applyDecodingDefaults(askedParams, defaults);
    const input =
      asked.kind === 'chat' && !asked.lengthGiven && defaults?.max_new_tokens !== undefined
        ? { ...asked, lengthGiven: true }
        : asked;
    // The deadline bounds the whole call, an image's decoding included; by default it grows with max_new_tokens.
    const deadlineEpochMs = Date.now() + generationTimeoutMs(endpoint ?? {}, spec, params.maxNewTokens);
    const prepared = await prepareGeneration(model, endpoint, input, params, this.imageDecodes);
    const inputIds = prepared.inputIds;
    const requestId = options.requestId ?? resolveRequestId(options.headers['x-request-id']);
    const call = await this.client
      .generate({
        modelName: spec.name,
        modelVersion: spec.version,
        id: requestId,
        inputIds,
        pixelValues: prepared.pixelValues,
        maxNewTokens: prepared.maxNewTokens,
        eosTokenIds: prepared.eosTokenIds,
        doSample: params.doSample,
        temperature: params.temperature,
        topK: params.topK,
        topP: params.topP,
        seed: params.seed,
        penalties: params.penalties,
        logprobs: params.logprobs,
        deadlineEpochMs,
        workerGroup: workerGroupFor(this.client, spec),
        metadata: { 'x-request-id': requestId },
        signal: options.signal,
      })
      .catch((error: unknown) => {
        this.metrics.generation.recorder(endpoint?.name, spec.id).ended('error');
        throw publicWorkerError(error, spec.id);
      });
    const firstTokenAt = performance.now();
    const recorder = this.metrics.generation.recorder(endpoint?.name, spec.id);
    recorder.firstToken((firstTokenAt - startedAt) / 1000);
    const events = generationEvents(call, {
      decode: prepared.decode,
      tokenText: prepared.tokenText,
      cleanUpSpaces: prepared.cleanUpSpaces,
      stop: params.stop,
      prefixIds: prepared.prefixIds,
      trim: prepared.trim,
      promptTokens: inputIds.length,
      now: () => performance.now(),
      startedAt,
      firstTokenAt,
      recorder,
      // Only deterministic requests are a fair test: greedy, or sampled with a seed the shadow shares.
      onEnd: (end) =>
        this.mirror(
          resolved,
          asked,
          askedParams,
          end,
          requestId,
          !params.doSample || params.seed !== undefined,
        ),
    });
    return {
      model: spec.name,
      version: spec.version,
      route,
      endpoint: endpoint?.name,
      promptTokens: inputIds.length,
      events,
    };
  }

  /** The model, route and shadows `target` resolves to; 400 for an endpoint of another task than `task`. */
  private resolve(
    target: GenerationTarget,
    options: GenerationCallOptions,
    task: 'text-generation' | 'image-to-text',
  ): Resolved {
    const table = this.requireTable();
    if ('model' in target) {
      const spec = findV2Model(table, target.model, target.version);
      return { model: servableModel(table, spec.id), route: 'model', endpoint: undefined, shadows: [] };
    }
    const endpoint = requireEndpoint(table, target.endpoint);
    if (endpoint.task !== task) {
      const why =
        endpoint.task === 'image-to-text'
          ? `: it captions an image and takes no text prompt; POST the image to /serve/${endpoint.name}`
          : isGenerativeTask(endpoint.task)
            ? ''
            : ': it does not generate';
      throw new ModelgateError(
        ErrorCode.INVALID_ARGUMENT,
        `endpoint ${endpoint.name} serves ${endpoint.task}, not ${task}${why}`,
      );
    }
    const stickyKey = options.stickyKey ?? stickyRouteKey(options.headers, endpoint);
    const choice = chooseRoute(table, endpoint, { version: target.version, stickyKey });
    return { model: choice.model, route: choice.role, endpoint, shadows: choice.shadows };
  }

  /**
   * Mirrors a finished endpoint call to its shadow models, non-streaming, and discards their
   * text (the shadow metrics count it, and whether it matched the primary's).
   */
  private mirror(
    resolved: Resolved,
    input: GenerationInput,
    params: GenerationParams,
    end: GenerationEnd,
    requestId: string,
    /** Whether the primary decoded deterministically (its answers can be compared). */
    comparable: boolean,
  ): void {
    const endpoint = resolved.endpoint;
    if (!endpoint) return;
    for (const shadow of resolved.shadows) {
      this.shadows.mirror({
        endpoint: endpoint.name,
        model: shadow.spec.id,
        task: resolved.model.spec.task,
        shadowTask: shadow.spec.task,
        primary: [{ generated_text: end.text }],
        comparable,
        predict: async () => {
          const target: Resolved = { model: shadow, route: 'shadow', endpoint, shadows: [] };
          const options = { signal: new AbortController().signal, headers: {}, requestId };
          const stream = await this.run(target, input, params, options, performance.now());
          const text = await collectText(stream.events);
          return [{ generated_text: text.text }];
        },
      });
    }
  }

  private requireTable(): EndpointTable {
    const table = this.tables.current;
    if (!table) throw new ModelgateError(ErrorCode.UNAVAILABLE, 'the gateway has no configuration yet');
    return table;
  }
}

/** Reads a generation to its end: its `end` event (the whole text, finish reason, counts). */
export async function collectText(events: AsyncIterable<GenerationEvent>): Promise<GenerationEnd> {
  for await (const event of events) if (event.type === 'end') return event;
  throw new ModelgateError(ErrorCode.CANCELLED, 'the generation was cancelled before its end');
}
