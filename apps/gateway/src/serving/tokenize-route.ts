// `POST /serve/:endpoint/tokenize`: the tokens an endpoint's model would read for a body (ids,
// vocabulary tokens, character offsets, which text each came from), after the truncation /serve
// would apply, as TEI's /tokenize. The gateway answers alone: no worker is called, and the call is
// not counted as served traffic (no request metrics, no rollout windows).
import { type EndpointSpec, ErrorCode, type ModelTask, ModelgateError } from '@modelgate/contracts';
import { type Logger } from '@modelgate/observability';
import {
  type TokenizableTask,
  type TokenizedText,
  parseTokenizeRequest,
  tokenizeTexts,
} from '@modelgate/processing';
import { type RouteChoice, pickRoute } from '@modelgate/routing';
import { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { type ServableModel, servableModel } from '../endpoints/endpoint-table.js';
import { type EndpointTables } from '../endpoints/endpoint-tables.service.js';
import { sendErrorReply } from '../http/http-exception.filter.js';
import { requireEndpoint } from './serve.service.js';
import { stickyRouteKey } from './sticky-key.js';

/** The 200 body: the serve answer's envelope, one tokenization per input. */
export interface TokenizeAnswer {
  endpoint: string;
  model: string;
  version: string;
  route: string;
  predictions: TokenizedText[];
}

/** Why a model of these tasks has no single tokenization to show. */
const UNTOKENIZABLE = {
  'question-answering':
    'which reads each question and context as windows (max_question_len, doc_stride) that /tokenize does not build',
  'image-classification': 'which reads images',
  'image-to-text': 'which reads an image (its tokenizer only decodes the caption)',
  raw: 'which takes tensors',
} as const;

function isTokenizable(task: ModelTask): task is TokenizableTask {
  return !(task in UNTOKENIZABLE);
}

/**
 * The endpoint named `endpointName` and the model the route a serve call with `stickyKey` takes
 * serves (canaries may use another tokenizer). NOT_FOUND for an unknown endpoint.
 */
export function routedModel(
  tables: EndpointTables,
  endpointName: string,
  stickyKey?: string,
): { endpoint: EndpointSpec; choice: RouteChoice<EndpointSpec['routes'][number]>; model: ServableModel } {
  const table = tables.current;
  if (!table) throw new ModelgateError(ErrorCode.UNAVAILABLE, 'the gateway has no configuration yet');
  const endpoint = requireEndpoint(table, endpointName);
  const choice = pickRoute(endpoint.routes, stickyKey === undefined ? {} : { stickyKey });
  return { endpoint, choice, model: servableModel(table, choice.route.model) };
}

/**
 * Tokenizes `body` with the tokenizer of the model the endpoint routes this caller to, as that
 * model's task reads text: pairs only where rows are pairs, a text-generation prompt cut from its
 * start to the endpoint's maxTokens. Question answering and image tasks are refused.
 */
export function tokenizeForEndpoint(
  tables: EndpointTables,
  endpointName: string,
  body: unknown,
  stickyKey?: string,
): TokenizeAnswer {
  const { endpoint, choice, model } = routedModel(tables, endpointName, stickyKey);
  const task = model.spec.task;
  const tokenizer = model.tokenizer;
  if (!tokenizer || !isTokenizable(task)) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `endpoint ${endpoint.name} has no tokenization to show: its model ${model.spec.id} is ${task}, ${UNTOKENIZABLE[task as keyof typeof UNTOKENIZABLE] ?? 'which takes no text'}`,
    );
  }
  const request = parseTokenizeRequest(body, endpoint.preprocessing, task);
  const predictions = tokenizeTexts({
    ...request,
    tokenizer,
    maxTokens: endpoint.preprocessing.maxTokens,
    prompt: task === 'text-generation',
  });
  return {
    endpoint: endpoint.name,
    model: model.spec.name,
    version: model.spec.version,
    route: choice.route.role,
    predictions,
  };
}

/** Adds `POST /serve/:endpoint/tokenize`; a static segment, so it wins over `/serve/:endpoint/:version`. */
export function installTokenizeRoute(
  fastify: FastifyInstance,
  deps: { tables: EndpointTables; logger: Logger },
): void {
  const errorHandler = (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    void sendErrorReply(request, reply, error, deps.logger);
  };
  fastify.post<{ Params: { endpoint: string } }>(
    '/serve/:endpoint/tokenize',
    { errorHandler },
    (request, reply) => {
      const endpoint = request.params.endpoint;
      const spec = deps.tables.current?.endpoints.get(endpoint);
      const answer = tokenizeForEndpoint(
        deps.tables,
        endpoint,
        request.body,
        stickyRouteKey(request.headers, spec),
      );
      void reply.header('x-modelgate-model', `${answer.model}:${answer.version}`);
      return Promise.resolve(answer);
    },
  );
}
