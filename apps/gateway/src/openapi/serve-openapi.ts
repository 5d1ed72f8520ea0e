// `POST /serve/:endpoint[/:version]` in the OpenAPI document, generated from the per-task table
// of @modelgate/processing (SERVE_TASK_SCHEMAS): a task with an entry there is documented here.
import {
  type ApiBody,
  type ApiHeader,
  type ApiResponse,
  type ApiRoute,
  type ErrorCode,
  RESOURCE_NAME_PATTERN,
  errorResponses,
} from '@modelgate/contracts';
import {
  IMAGE_MEDIA_TYPES,
  SERVE_TASKS,
  SERVE_TASK_SCHEMAS,
  type ServeTask,
  type ServeTaskSchemas,
  tokenizeRequestSchema,
  tokenizedTextSchema,
} from '@modelgate/processing';
import { z } from 'zod';
import { errorBodySchema } from '../http/http-exception.filter.js';

/** The endpoint the examples call. */
export const EXAMPLE_ENDPOINT = 'sentiment';

/** The gateway's error body, the schema its exception filter's type is inferred from. */
export const gatewayErrorBody: Omit<ApiBody, 'examples'> = { name: 'Error', schema: errorBodySchema };

/** An error body of the gateway's shape for the docs' examples. */
export function gatewayErrorExample(code: ErrorCode): unknown {
  return { error: { code, message: `what went wrong (${code})`, request_id: 'b3c1f0a2e4d5' } };
}

/**
 * Error answers of a gateway route in the gateway's error body: `statuses`, plus 500 (INTERNAL),
 * which any route may answer. Each status is described by the codes the one status table maps to it.
 */
export function gatewayErrors(statuses: readonly number[]): Record<string, ApiResponse> {
  return errorResponses([...statuses, 500], gatewayErrorBody, gatewayErrorExample);
}

/** `x-request-id`, on requests and answers. */
export const REQUEST_ID_HEADER: ApiHeader = {
  name: 'x-request-id',
  description: 'Echoed on the answer; one is generated when absent or malformed.',
};

const endpointName = z
  .string()
  .regex(RESOURCE_NAME_PATTERN)
  .describe('The endpoint, as `modelgate endpoint add` named it.')
  .meta({ examples: [EXAMPLE_ENDPOINT] });

const taskBodies = SERVE_TASKS.map((task) =>
  SERVE_TASK_SCHEMAS[task].request.meta({ title: task, description: SERVE_TASK_SCHEMAS[task].summary }),
);

/** The request body: the alternatives of every task; the endpoint's task says which applies. */
export const serveRequestBody: ApiBody = {
  name: 'ServeRequest',
  schema: z.union(taskBodies),
  examples: Object.fromEntries(
    SERVE_TASKS.map((task) => [
      task,
      {
        summary: `${task}: ${SERVE_TASK_SCHEMAS[task].example.summary}`,
        value: SERVE_TASK_SCHEMAS[task].example.request,
      },
    ]),
  ),
};

const rawImageSchema = z
  .string()
  .describe(
    'The image file itself (JPEG, PNG or WebP) as the body: an image-classification or image-to-text endpoint ' +
      "(its default parameters; `Accept: text/event-stream` streams an image-to-text endpoint's caption)",
  )
  .meta({ format: 'binary' });

/** The raw image body of the image endpoints, one per accepted media type. */
export const rawImageBodies: ApiBody[] = Object.values(IMAGE_MEDIA_TYPES).map((contentType) => ({
  name: 'ServeImage',
  contentType,
  schema: rawImageSchema,
}));

function answerOf(task: ServeTask) {
  return z
    .object({
      endpoint: z.string().describe('The endpoint that was called'),
      model: z.string().describe('The model that answered (its name; `version` is its version)'),
      version: z.string().describe("That model's version"),
      route: z.string().describe("The route's role: primary or canary (or pinned)"),
      predictions: z
        .array(SERVE_TASK_SCHEMAS[task].prediction)
        .describe(
          task === 'text-ranking'
            ? 'The texts, best first (the best top_n when given)'
            : 'One per input, in order',
        ),
    })
    .meta({ title: task });
}

/** The 200 body: `{endpoint, model, version, route, predictions}` with the task's predictions. */
export const serveAnswerBody: ApiBody = {
  name: 'ServeAnswer',
  schema: z.union(SERVE_TASKS.map(answerOf)),
  examples: Object.fromEntries(
    SERVE_TASKS.map((task) => [
      task,
      {
        summary: task,
        value: {
          endpoint: EXAMPLE_ENDPOINT,
          model: 'sst2',
          version: '1',
          route: 'primary',
          predictions: SERVE_TASK_SCHEMAS[task].example.predictions,
        },
      },
    ]),
  ),
};

/** The `data` of each Server-Sent Event of a streamed answer (`stream: true`; text-generation and image-to-text). */
export const serveEventBody: ApiBody = {
  name: 'ServeEvent',
  contentType: 'text/event-stream',
  schema: z.union(
    SERVE_TASKS.flatMap((task) => {
      const events = (SERVE_TASK_SCHEMAS[task] as ServeTaskSchemas).events;
      return events ? [events.schema.meta({ title: task })] : [];
    }),
  ),
  examples: Object.fromEntries(
    SERVE_TASKS.flatMap((task) =>
      Object.entries((SERVE_TASK_SCHEMAS[task] as ServeTaskSchemas).events?.examples ?? {}).map(
        ([name, example]) => [`${task}-${name}`, { ...example, summary: `${task}: ${example.summary}` }],
      ),
    ),
  ),
};

const acceptedJobBody: ApiBody = {
  name: 'AcceptedJob',
  schema: z.object({
    job: z.string().describe('The job id'),
    status_url: z.string().describe('Where to poll: `/jobs/<job>`'),
  }),
  examples: { queued: { summary: 'Queued', value: { job: 'k3Jv9q', status_url: '/jobs/k3Jv9q' } } },
};

/** The sticky-route request header (an endpoint's `stickyHeader` may name another). */
export const ROUTE_KEY_HEADER: ApiHeader = {
  name: 'x-modelgate-route-key',
  description:
    'Keeps a client on one canary route: the same key always takes the same route (an endpoint may name another header).',
};

/** The response header naming the model that answered. */
export const MODEL_HEADER: ApiHeader = {
  name: 'x-modelgate-model',
  description: 'The model that answered, `name:version`.',
};

const requestHeaders: ApiHeader[] = [
  REQUEST_ID_HEADER,
  ROUTE_KEY_HEADER,
  {
    name: 'Prefer',
    description: '`respond-async` queues the request and answers 202 with a job to poll (needs Redis).',
    schema: z.enum(['respond-async']),
  },
  {
    name: 'Accept',
    description:
      '`text/event-stream` with a raw image body on an image-to-text endpoint streams the caption as ' +
      'Server-Sent Events (a JSON body asks with `"stream": true`).',
  },
];

function serveRoute(pinned: boolean): ApiRoute {
  return {
    method: 'post',
    path: pinned ? '/serve/{endpoint}/{version}' : '/serve/{endpoint}',
    // The ids the former Nest controller gave them, so generated clients keep their method names.
    operationId: pinned ? 'ServingController_servePinned' : 'ServingController_serve',
    tag: 'serving',
    summary: pinned
      ? 'Run the endpoint on one model version, bypassing its routes'
      : "Run the endpoint's model (weighted routes, sticky key)",
    description:
      'The body depends on the endpoint\'s task (one alternative per task below); send `{"text": [...]}` ' +
      'for a batch. The answer holds one prediction per input, in order. A text-generation endpoint takes ' +
      'one prompt; with `"stream": true` it answers Server-Sent Events: `data: {"text", "token_ids"}` per ' +
      'delta, then `event: end` with the finish reason and token counts (`event: error` for an error after ' +
      'the stream began). The image endpoints (image-classification, image-to-text) take ' +
      '`{"image": "<base64 or data URL>"}`, or the image itself as the body with Content-Type image/jpeg, ' +
      "image/png or image/webp (`curl --data-binary @cat.jpg -H 'content-type: image/jpeg'`); 413 over " +
      'their size limits, 415 for another format. An image-to-text endpoint answers a caption as ' +
      "text-generation answers text (leading and trailing whitespace trimmed, as transformers.js' " +
      'pipeline; the streamed deltas add up to the same text): `"stream": true`, or ' +
      '`Accept: text/event-stream` with a raw image, streams it; `parameters.return_full_text` is refused.',
    pathParams: pinned
      ? z.object({ endpoint: endpointName, version: z.string().regex(/^\d+$/).describe('A model version') })
      : z.object({ endpoint: endpointName }),
    headers: requestHeaders,
    body: serveRequestBody,
    bodyAlternatives: rawImageBodies,
    responses: {
      '200': {
        description:
          'The predictions, or Server-Sent Events when a text-generation or image-to-text request streams.',
        body: serveAnswerBody,
        alternatives: [serveEventBody],
        headers: [
          REQUEST_ID_HEADER,
          MODEL_HEADER,
          {
            name: 'Server-Timing',
            description:
              'tokenize, queue, infer, post and total durations in ms: `tokenize;dur=0.12, …` (text-generation ' +
              'and image-to-text: queue, ttft and total; an HTTP trailer of a streamed answer).',
          },
        ],
      },
      '202': {
        description: 'Queued (`Prefer: respond-async`); poll `status_url`.',
        body: acceptedJobBody,
        headers: [
          { name: 'Location', description: 'The job, `/jobs/<job>`.' },
          { name: 'Preference-Applied', description: '`respond-async`.' },
        ],
      },
      ...gatewayErrors([400, 404, 413, 415, 422, 429, 503, 504]),
    },
  };
}

const tokenizeRoute: ApiRoute = {
  method: 'post',
  path: '/serve/{endpoint}/tokenize',
  operationId: 'ServingController_tokenize',
  tag: 'serving',
  summary: "The tokens the endpoint's model would read (ids, tokens, offsets), without running it",
  pathParams: z.object({ endpoint: endpointName }),
  headers: requestHeaders.filter((header) => header.name !== 'Prefer' && header.name !== 'Accept'),
  body: {
    name: 'TokenizeRequest',
    schema: tokenizeRequestSchema,
    examples: { one: { summary: 'One text', value: { text: 'I love this movie!' } } },
  },
  responses: {
    '200': {
      description:
        'One tokenization per input, after the truncation /serve would apply: text_pair only where the model reads pairs ' +
        "(text-classification, text-ranking); one prompt for text-generation, cut from its start to the endpoint's maxTokens. " +
        'Question answering (windows), image and raw models answer 400.',
      body: {
        name: 'TokenizeAnswer',
        schema: z.object({
          endpoint: z.string().describe('The endpoint that was called'),
          model: z.string().describe('The model whose tokenizer was used (its name)'),
          version: z.string().describe("That model's version"),
          route: z.string().describe("The route's role: primary or canary (or pinned)"),
          predictions: z.array(tokenizedTextSchema).describe('One tokenization per input, in order'),
        }),
      },
      headers: [
        REQUEST_ID_HEADER,
        { name: 'x-modelgate-model', description: 'Whose tokenizer, `name:version`.' },
      ],
    },
    ...gatewayErrors([400, 404, 413, 415, 422, 503]),
  },
};

/** The serve routes and the tokenize route beside them. */
export const serveRoutes: ApiRoute[] = [serveRoute(false), serveRoute(true), tokenizeRoute];
