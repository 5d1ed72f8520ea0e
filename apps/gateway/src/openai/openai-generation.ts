// One request flow for the OpenAI generation routes (completions, chat completions): the endpoint
// noted, the body parsed, the generations started on one route, then one JSON answer or a stream
// of chunks, and the request's metrics recorded either way. What differs between the routes (the
// body, the generations it asks for, the answer's and the chunks' shapes) is the route's face.
import { randomBytes } from 'node:crypto';
import { type Logger } from '@modelgate/observability';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { type EndpointTables } from '../endpoints/endpoint-tables.service.js';
import { clientGoneSignal } from '../http/client-gone.js';
import { noteEndUser } from '../http/end-user.js';
import { type GenerationSseFormat, renameErrorFields, sendGenerationSse } from '../http/generation-answer.js';
import { type GatewayMetrics } from '../metrics/gateway-metrics.js';
import {
  type GenerationEnd,
  type GenerationService,
  collectText,
} from '../serving/generation/generation.service.js';
import { generationServerTiming } from '../serving/generation/serve-generation.js';
import { stickyRouteKey } from '../serving/sticky-key.js';
import { type CompletionIdentity } from './openai-completions.js';
import {
  type OpenAiGeneration,
  type Reached,
  cancelled,
  noteEndpoint,
  recordOpenAiFailure,
  recordOpenAiSuccess,
  requireGenerator,
  startGenerations,
} from './openai-traffic.js';

/** What a parsed OpenAI generation request has in common. */
export interface OpenAiGenerationRequest {
  model: string;
  user?: string | undefined;
  stream: boolean;
}

/** One OpenAI generation route: how its body reads and how its answers are shaped. */
export interface OpenAiGenerationFace<R extends OpenAiGenerationRequest> {
  /** The route, as its refusals name it (`/v1/completions`). */
  route: string;
  /** The prefix of its answers' ids (`cmpl`). */
  idPrefix: string;
  /** The generation service's field names, as this route names them. */
  fields: Readonly<Record<string, string>>;
  parse(body: unknown): R;
  /** The generations the request asks for, in the order of its choices. */
  generations(request: R): OpenAiGeneration[];
  /** The non-streamed answer, from each choice's end in order. */
  answer(request: R, identity: CompletionIdentity, ends: readonly GenerationEnd[]): unknown;
  /** The stream's chunks. */
  events(request: R, identity: CompletionIdentity): GenerationSseFormat;
}

/** Runs OpenAI generation requests for the routes' controllers. */
export class OpenAiGenerationRunner {
  constructor(
    private readonly generation: GenerationService,
    private readonly tables: EndpointTables,
    private readonly metrics: GatewayMetrics,
    private readonly logger: Logger,
  ) {}

  /** Answers `body` on `reply` as `face` shapes it; a failure before the answer starts is thrown. */
  async run<R extends OpenAiGenerationRequest>(
    face: OpenAiGenerationFace<R>,
    body: unknown,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    const started = performance.now();
    // What the failure metrics are labelled with: the endpoint once known, the model once routed.
    const reached: Reached = {};
    try {
      await this.answer(face, body, request, reply, started, reached);
    } catch (error) {
      recordOpenAiFailure(this.metrics, error, started, reached);
      throw error;
    }
  }

  private async answer<R extends OpenAiGenerationRequest>(
    face: OpenAiGenerationFace<R>,
    body: unknown,
    request: FastifyRequest,
    reply: FastifyReply,
    started: number,
    reached: Reached,
  ): Promise<void> {
    const endpoint = noteEndpoint(this.tables, body, reached);
    const parsed = face.parse(body);
    noteEndUser(request, parsed.user);
    requireGenerator(endpoint, face.route);
    const identity: CompletionIdentity = {
      id: `${face.idPrefix}-${randomBytes(12).toString('base64url')}`,
      created: Math.floor(Date.now() / 1000),
      model: parsed.model,
    };
    // Aborted when the client goes away, or to end the other choices' generations when one fails.
    const abort = new AbortController();
    const signal = AbortSignal.any([clientGoneSignal(request.raw.socket), abort.signal]);
    const streams = await startGenerations(this.generation, parsed.model, face.generations(parsed), {
      request,
      stickyKey: stickyRouteKey(request.headers, endpoint) ?? identity.id,
      signal,
      reached,
    }).catch((error: unknown) => {
      abort.abort();
      throw renameErrorFields(error, face.fields);
    });
    const first = streams[0]!;
    const headers = { 'x-modelgate-model': `${first.model}:${first.version}` };
    if (!parsed.stream) {
      const ends = await Promise.all(streams.map((stream) => collectText(stream.events))).catch(
        (error: unknown) => {
          abort.abort();
          throw error;
        },
      );
      recordOpenAiSuccess(this.metrics, started, reached, first.route);
      await reply
        .headers(headers)
        .header('server-timing', generationServerTiming(ends[0]!.timings))
        .send(face.answer(parsed, identity, ends));
      return;
    }
    const sent = await sendGenerationSse(reply, streams, face.events(parsed, identity), headers, this.logger);
    if (sent.outcome === 'ended') recordOpenAiSuccess(this.metrics, started, reached, first.route);
    else {
      const error = sent.outcome === 'failed' ? sent.error : cancelled();
      recordOpenAiFailure(this.metrics, error, started, reached);
    }
  }
}
