import { availableParallelism } from 'node:os';
import { Body, Controller, Get, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { type EndpointSpec, ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { EndpointTables } from '../endpoints/endpoint-tables.service.js';
import { type GatewayConfig, gatewayEventLoops } from '../gateway.config.js';
import { GATEWAY_CONFIG } from '../gateway.tokens.js';
import { clientGoneSignal } from '../http/client-gone.js';
import { renameErrorFields } from '../http/generation-answer.js';
import { GatewayMetrics } from '../metrics/gateway-metrics.js';
import { type Reached } from '../openai/openai-traffic.js';
import { decodeIds } from '../serving/generation/prompt-limits.js';
import { type ServeAnswer, ServeService } from '../serving/serve.service.js';
import { stickyRouteKey } from '../serving/sticky-key.js';
import { routedModel, tokenizeForEndpoint } from '../serving/tokenize-route.js';
import {
  type TeiPrediction,
  type TeiToken,
  teiEmbeddings,
  teiInfo,
  teiPrediction,
  teiTokenEmbeddings,
  teiTokens,
} from './tei-answers.js';
import { type TeiRoute, requireTeiTask, teiEndpointName } from './tei-endpoint.js';
import {
  type TeiSequence,
  parseTeiDecode,
  parseTeiEmbed,
  parseTeiEmbedAll,
  parseTeiPredict,
  parseTeiRerank,
  parseTeiTokenize,
} from './tei-requests.js';
import { type ClassScore, checkItemCount } from '@modelgate/processing';

/** /serve's field names as TEI's bodies name them, for error messages. */
const TEI_FIELDS = {
  text: 'inputs',
  text_pair: 'inputs',
  'parameters.truncation': 'truncate',
  'parameters.normalize': 'normalize',
} as const;

/** Runs one /serve call of the request's endpoint. */
type ServeOne = (body: unknown) => Promise<ServeAnswer>;

/**
 * Text Embeddings Inference's routes (`/embed`, `/embed_all`, `/rerank`, `/predict`, `/tokenize`,
 * `/decode`, `GET /info`) over modelgate endpoints: the endpoint is the body's `model`, the
 * x-modelgate-endpoint header, or GATEWAY_TEI_DEFAULT_ENDPOINT (tei/tei-endpoint.ts). Inference
 * goes through /serve's path (routes, canaries, shadows, deadlines); errors are TEI's
 * `{error, error_type}` (tei/tei-errors.ts).
 */
@Controller()
export class TeiController {
  constructor(
    @Inject(ServeService) private readonly serve: ServeService,
    @Inject(EndpointTables) private readonly tables: EndpointTables,
    @Inject(GatewayMetrics) private readonly metrics: GatewayMetrics,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Post('embed')
  @HttpCode(200)
  embed(
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.served('embed', body, request, reply, async (serveOne) => {
      const call = parseTeiEmbed(body);
      return teiEmbeddings((await serveOne(call.serveBody)).body.predictions, call);
    });
  }

  @Post('embed_all')
  @HttpCode(200)
  embedAll(
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.served('embed_all', body, request, reply, async (serveOne) =>
      teiTokenEmbeddings((await serveOne(parseTeiEmbedAll(body).serveBody)).body.predictions),
    );
  }

  @Post('rerank')
  @HttpCode(200)
  rerank(
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.served(
      'rerank',
      body,
      request,
      reply,
      async (serveOne) => (await serveOne(parseTeiRerank(body))).body.predictions,
    );
  }

  @Post('predict')
  @HttpCode(200)
  predict(
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.served('predict', body, request, reply, async (serveOne, endpoint) => {
      const call = parseTeiPredict(body);
      // Checked on the whole batch: a mixed one is two /serve calls, each under the limit.
      if (endpoint)
        checkItemCount({ inputs: call.sequences }, 'inputs', endpoint.preprocessing.maxBatchItems);
      // /serve takes texts, or pairs, per call: a batch mixing both is two calls.
      const answers = new Array<TeiPrediction[]>(call.sequences.length);
      const groups = [
        call.sequences.flatMap((s, i) => (s.length === 1 ? [i] : [])),
        call.sequences.flatMap((s, i) => (s.length === 2 ? [i] : [])),
      ];
      await Promise.all(
        groups
          .filter((indices) => indices.length > 0)
          .map(async (indices) => {
            const picked = indices.map((i) => call.sequences[i] as TeiSequence);
            const pairs = picked[0]?.length === 2;
            const answer = await serveOne({
              text: picked.map((s) => s[0]),
              ...(pairs ? { text_pair: picked.map((s) => s[1] ?? '') } : {}),
              parameters: call.parameters,
            });
            answer.body.predictions.forEach((labels, k) => {
              answers[indices[k] ?? 0] = teiPrediction(labels as ClassScore[]);
            });
          }),
      );
      return call.batch ? answers : (answers[0] ?? []);
    });
  }

  @Post('tokenize')
  @HttpCode(200)
  tokenize(@Body() body: unknown, @Req() request: FastifyRequest): TeiToken[][] {
    const name = teiEndpointName('tokenize', body, request.headers, this.config.GATEWAY_TEI_DEFAULT_ENDPOINT);
    const tokenizeBody = parseTeiTokenize(body);
    const endpoint = this.tables.current?.endpoints.get(name);
    try {
      const answer = tokenizeForEndpoint(
        this.tables,
        name,
        tokenizeBody,
        stickyRouteKey(request.headers, endpoint),
      );
      return answer.predictions.map((tokenized, index) =>
        teiTokens(tokenizeBody.text[index] ?? '', tokenized),
      );
    } catch (error) {
      throw renameErrorFields(error, TEI_FIELDS);
    }
  }

  @Post('decode')
  @HttpCode(200)
  decode(@Body() body: unknown, @Req() request: FastifyRequest): string[] {
    const name = teiEndpointName('decode', body, request.headers, this.config.GATEWAY_TEI_DEFAULT_ENDPOINT);
    const { ids, flat, skipSpecialTokens } = parseTeiDecode(body);
    const endpoint = this.tables.current?.endpoints.get(name);
    const { model } = routedModel(this.tables, name, stickyRouteKey(request.headers, endpoint));
    const tokenizer = model.tokenizer;
    if (!tokenizer) {
      throw new ModelgateError(
        ErrorCode.INVALID_ARGUMENT,
        `endpoint ${name} has no tokenizer to decode with: its model ${model.spec.id} is ${model.spec.task}`,
        { field: 'model' },
      );
    }
    return ids.map((list, row) =>
      decodeIds(tokenizer, list, skipSpecialTokens, (id, index) => {
        const field = flat ? `ids[${index}]` : `ids[${row}][${index}]`;
        throw new ModelgateError(
          ErrorCode.INVALID_ARGUMENT,
          `${field}: ${id} is not a token id of the model's vocabulary`,
          {
            field,
          },
        );
      }),
    );
  }

  @Get('info')
  info(@Req() request: FastifyRequest): Record<string, unknown> {
    const name = teiEndpointName(
      'info',
      undefined,
      request.headers,
      this.config.GATEWAY_TEI_DEFAULT_ENDPOINT,
    );
    const spec = this.tables.current?.endpoints.get(name);
    const { endpoint, model } = routedModel(this.tables, name, stickyRouteKey(request.headers, spec));
    requireTeiTask('info', name, model.spec.task);
    return teiInfo(endpoint, model.spec, {
      maxInputLength: endpoint.preprocessing.maxTokens ?? model.tokenizer?.maxLength ?? 0,
      labels: model.labels ?? model.tokenizer?.modelConfig.labels ?? [],
      tokenizationWorkers: gatewayEventLoops(this.config, availableParallelism()),
    });
  }

  /**
   * One inference route: the endpoint named for it, checked for the route's task, served through
   * /serve's path by `run`, counted in the request metrics (failures too, labelled as far as the
   * request got), the serving model in x-modelgate-model.
   */
  private async served<T>(
    route: TeiRoute,
    body: unknown,
    request: FastifyRequest,
    reply: FastifyReply,
    run: (serveOne: ServeOne, endpoint: EndpointSpec | undefined) => Promise<T>,
  ): Promise<T> {
    const started = performance.now();
    const reached: Reached = {};
    try {
      const name = teiEndpointName(route, body, request.headers, this.config.GATEWAY_TEI_DEFAULT_ENDPOINT);
      const endpoint = this.tables.current?.endpoints.get(name);
      if (endpoint) {
        reached.endpoint = name;
        requireTeiTask(route, name, endpoint.task);
      }
      const stickyKey = stickyRouteKey(request.headers, endpoint);
      // A client that goes away cancels the worker calls, as on /serve.
      const signal = clientGoneSignal(request.raw.socket);
      let last: ServeAnswer | undefined;
      const serveOne: ServeOne = async (serveBody) => {
        last = await this.serve
          .serve(
            {
              endpoint: name,
              body: serveBody,
              requestId: request.id,
              ...(stickyKey === undefined ? {} : { stickyKey }),
              signal,
            },
            (to) => {
              reached.routed = to;
            },
          )
          .catch((error: unknown) => {
            throw renameErrorFields(error, TEI_FIELDS);
          });
        return last;
      };
      const answer = await run(serveOne, endpoint);
      if (last) {
        void reply.header('x-modelgate-model', last.modelId);
        this.metrics.recordRequest(last.body.endpoint, last.modelId, last.body.route, 200, started);
      }
      return answer;
    } catch (error) {
      this.metrics.recordError(reached.endpoint ?? 'unknown', error, started, reached.routed);
      throw error;
    }
  }
}
