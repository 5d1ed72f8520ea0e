/**
 * Which endpoint a TEI-compatible route serves: the body's `model` field, then the
 * `x-modelgate-endpoint` header, then GATEWAY_TEI_DEFAULT_ENDPOINT (one endpoint for every route,
 * and/or `route=endpoint` entries for some). TEI serves one model per server; modelgate serves
 * many, so a TEI client that cannot send `model` names its endpoint by header or by default. Pure.
 */
import { ErrorCode, type ModelTask, ModelgateError, RESOURCE_NAME_PATTERN } from '@modelgate/contracts';
import { z } from 'zod';

/** The TEI routes modelgate answers, by path (`/embed`, …). */
export const TEI_ROUTES = ['embed', 'embed_all', 'rerank', 'predict', 'tokenize', 'decode', 'info'] as const;

/** One TEI route. */
export type TeiRoute = (typeof TEI_ROUTES)[number];

/** The header that names the endpoint when the body has no `model`. */
export const TEI_ENDPOINT_HEADER = 'x-modelgate-endpoint';

/** GATEWAY_TEI_DEFAULT_ENDPOINT, parsed: an endpoint for every route, and ones for some routes. */
export interface TeiDefaults {
  /** The endpoint of every route not in `byRoute`. */
  all?: string;
  byRoute: Partial<Record<TeiRoute, string>>;
}

/**
 * `embedder` (every route) or `embed=embedder,rerank=ranker,predict=sentiment` (per route), or
 * both (`embedder,rerank=ranker`); empty: no default.
 */
export const teiDefaultsFromEnv = z.string().transform((value, ctx): TeiDefaults => {
  const defaults: TeiDefaults = { byRoute: {} };
  for (const entry of value.split(',').map((item) => item.trim())) {
    if (entry === '') continue;
    const [left = '', right] = entry.split('=', 2).map((part) => part.trim());
    const name = right ?? left;
    if (!RESOURCE_NAME_PATTERN.test(name)) {
      ctx.addIssue({
        code: 'custom',
        message: `'${name}' is not an endpoint name (lowercase letters, digits, -)`,
      });
      continue;
    }
    if (right === undefined) {
      if (defaults.all !== undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `two endpoints for every route ('${defaults.all}', '${name}'): name one`,
        });
      }
      defaults.all = name;
      continue;
    }
    if (!(TEI_ROUTES as readonly string[]).includes(left)) {
      ctx.addIssue({ code: 'custom', message: `'${left}' is not a TEI route (${TEI_ROUTES.join(', ')})` });
      continue;
    }
    if (defaults.byRoute[left as TeiRoute] !== undefined) {
      ctx.addIssue({ code: 'custom', message: `route '${left}' is given twice` });
    }
    defaults.byRoute[left as TeiRoute] = name;
  }
  return defaults;
});

/** The endpoint `route` serves for a request with this body and these headers. */
export function teiEndpointName(
  route: TeiRoute,
  body: unknown,
  headers: Record<string, string | string[] | undefined>,
  defaults: TeiDefaults,
): string {
  const model = (body as { model?: unknown } | null | undefined)?.model;
  if (model !== undefined && model !== null) {
    if (typeof model === 'string' && model !== '') return model;
    throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, 'model: must be the name of an endpoint', {
      field: 'model',
    });
  }
  const header = headers[TEI_ENDPOINT_HEADER];
  const named = Array.isArray(header) ? header[0] : header;
  if (named !== undefined && named !== '') return named;
  const fallback = defaults.byRoute[route] ?? defaults.all;
  if (fallback !== undefined) return fallback;
  throw new ModelgateError(
    ErrorCode.INVALID_ARGUMENT,
    `no endpoint named: send \`model\` in the body, the ${TEI_ENDPOINT_HEADER} header, or set GATEWAY_TEI_DEFAULT_ENDPOINT on the gateway`,
    { field: 'model' },
  );
}

/** The tasks each route serves (TEI's embedding, classifier and reranker model types). */
const ROUTE_TASKS: Record<TeiRoute, readonly ModelTask[] | 'tokenizer'> = {
  embed: ['feature-extraction'],
  embed_all: ['feature-extraction'],
  predict: ['text-classification'],
  rerank: ['text-ranking'],
  info: ['feature-extraction', 'text-classification', 'text-ranking'],
  tokenize: 'tokenizer',
  decode: 'tokenizer',
};

/** 422 when an endpoint of `task` cannot answer `route` (the tokenizer routes take any text task). */
export function requireTeiTask(route: TeiRoute, endpoint: string, task: ModelTask): void {
  const tasks = ROUTE_TASKS[route];
  if (tasks === 'tokenizer' || tasks.includes(task)) return;
  throw new ModelgateError(
    ErrorCode.INVALID_ARGUMENT,
    `endpoint '${endpoint}' serves ${task}; /${route} needs a ${tasks.join(' or ')} endpoint`,
    { field: 'model' },
  );
}
