// The text-generation routes besides /serve in the OpenAPI document: Triton's generate extension
// (`/v2/models/{model}[/versions/{version}]/generate[_stream]`) and OpenAI's `/v1/completions`.
// A streamed answer is documented as `text/event-stream` whose schema is one event's `data`.
import {
  type ApiBody,
  type ApiResponse,
  type ApiRoute,
  type ErrorCode,
  errorResponses,
  toHttpStatus,
} from '@modelgate/contracts';
import { z } from 'zod';
import { tritonGenerateAnswerSchema, tritonGenerateRequestSchema } from '../kserve/triton-generate.js';
import { completionAnswerSchema, completionChunkSchema } from '../openai/completion-answer.schema.js';
import { openAiCompletionsRequestSchema } from '../openai/openai-completions.js';
import { openAiErrorBodySchema, openAiErrorType } from '../openai/openai-errors.js';
import { modelParams, v2Error, versionParams } from './kserve-openapi.js';
import { MODEL_HEADER, REQUEST_ID_HEADER, ROUTE_KEY_HEADER } from './serve-openapi.js';

const EXAMPLE_MODEL = 'gpt2';

const tritonRequestBody: ApiBody = {
  name: 'TritonGenerateRequest',
  schema: tritonGenerateRequestSchema,
  examples: {
    greedy: {
      summary: 'Eight tokens, greedy',
      value: { text_input: 'The capital of France is', parameters: { max_tokens: 8, temperature: 0 } },
    },
    sampled: {
      summary: 'Sampled, seeded, with a stop string (TensorRT-LLM style top-level fields)',
      value: {
        text_input: 'Once upon a time',
        max_tokens: 32,
        temperature: 0.8,
        top_p: 0.95,
        seed: 7,
        stop_words: ['\n'],
      },
    },
  },
};

const tritonAnswerBody: ApiBody = {
  name: 'TritonGenerateAnswer',
  schema: tritonGenerateAnswerSchema,
  examples: {
    text: {
      summary: 'The generated text',
      value: {
        model_name: EXAMPLE_MODEL,
        model_version: '1',
        text_output: ' Paris, and the city',
        finish_reason: 'length',
      },
    },
  },
};

const tritonEventBody: ApiBody = {
  name: 'TritonGenerateEvent',
  contentType: 'text/event-stream',
  schema: z.union([
    tritonGenerateAnswerSchema.meta({
      title: 'delta',
      description: 'A text delta; the last event has finish_reason',
    }),
    z
      .object({ error: z.string().describe('What went wrong after the stream began') })
      .meta({ title: 'error', description: 'An error after the stream began (the status was already 200)' }),
  ]),
  examples: {
    delta: {
      summary: 'One delta',
      value: { model_name: EXAMPLE_MODEL, model_version: '1', text_output: ' Paris' },
    },
    last: {
      summary: 'The last event',
      value: { model_name: EXAMPLE_MODEL, model_version: '1', text_output: '', finish_reason: 'stop' },
    },
  },
};

function tritonRoutes(versioned: boolean): ApiRoute[] {
  const base = versioned ? '/v2/models/{model}/versions/{version}' : '/v2/models/{model}';
  const which = versioned
    ? 'one version of a text-generation model'
    : 'the newest loaded version of a text-generation model';
  const suffix = versioned ? 'Version' : '';
  const errors: Record<string, ApiResponse> = {
    '400': v2Error('A malformed body, an unsupported parameter, or not a text-generation model.'),
    '404': v2Error('Unknown model or version.'),
    '422': v2Error("The prompt plus max_tokens is over the model's context."),
    '429': v2Error("The model's queue is full."),
    '503': v2Error('No ready worker.'),
    '504': v2Error('Deadline exceeded.'),
  };
  return [
    {
      method: 'post',
      path: `${base}/generate`,
      operationId: `V2GenerateController_generate${suffix}`,
      tag: 'kserve-v2',
      summary: `Triton's generate extension: text in, generated text out, on ${which}`,
      description:
        'Decoding parameters go in `parameters` or at the top level (not both); unsupported ones are refused.',
      pathParams: versioned ? versionParams : modelParams,
      body: tritonRequestBody,
      responses: { '200': { description: 'The generated text.', body: tritonAnswerBody }, ...errors },
    },
    {
      method: 'post',
      path: `${base}/generate_stream`,
      operationId: `V2GenerateController_generateStream${suffix}`,
      tag: 'kserve-v2',
      summary: `Triton's generate extension, streamed: Server-Sent Events of text deltas, on ${which}`,
      description:
        'Each event is `data: <JSON>`; an error after the first event is an event `{"error": ...}`, since the status is already sent.',
      pathParams: versioned ? versionParams : modelParams,
      body: tritonRequestBody,
      responses: {
        '200': { description: 'Server-Sent Events of text deltas.', body: tritonEventBody },
        ...errors,
      },
    },
  ];
}

/** The /v1 error body: the gateway's, with OpenAI's `type` and `param`. */
const openAiErrorBody: Omit<ApiBody, 'examples'> = { name: 'OpenAiError', schema: openAiErrorBodySchema };

/** Error answers of a /v1 route in its error body (plus 500, which any route may answer). */
export function openAiErrors(statuses: readonly number[]): Record<string, ApiResponse> {
  return errorResponses([...statuses, 500], openAiErrorBody, (code: ErrorCode) => ({
    error: {
      code,
      message: `what went wrong (${code})`,
      request_id: 'b3c1f0a2e4d5',
      type: openAiErrorType(toHttpStatus(code)),
      param: code === 'INVALID_ARGUMENT' ? 'temperature' : null,
    },
  }));
}

const completionRequestBody: ApiBody = {
  name: 'CompletionRequest',
  schema: openAiCompletionsRequestSchema,
  examples: {
    greedy: {
      summary: 'Greedy',
      value: { model: 'writer', prompt: 'The capital of France is', max_tokens: 8, temperature: 0 },
    },
    stream: {
      summary: 'Streamed with usage',
      value: {
        model: 'writer',
        prompt: 'Once upon a time',
        stream: true,
        stream_options: { include_usage: true },
      },
    },
  },
};

const completionAnswerBody: ApiBody = {
  name: 'Completion',
  schema: completionAnswerSchema,
  examples: {
    text: {
      summary: 'A completion',
      value: {
        id: 'cmpl-3fK9d0aQ',
        object: 'text_completion',
        created: 1_700_000_000,
        model: 'writer',
        choices: [{ text: ' Paris, and the city', index: 0, finish_reason: 'length', logprobs: null }],
        usage: { prompt_tokens: 5, completion_tokens: 8, total_tokens: 13 },
      },
    },
  },
};

const completionChunkBody: ApiBody = {
  name: 'CompletionChunk',
  contentType: 'text/event-stream',
  schema: z.union([
    completionChunkSchema.meta({
      title: 'chunk',
      description: 'A text delta, the last chunk, or the usage chunk',
    }),
    openAiErrorBodySchema.meta({ title: 'error', description: 'An error after the stream began' }),
  ]),
  examples: {
    delta: {
      summary: 'A delta (the stream ends with `data: [DONE]`)',
      value: {
        id: 'cmpl-3fK9d0aQ',
        object: 'text_completion',
        created: 1_700_000_000,
        model: 'writer',
        choices: [{ text: ' Paris', index: 0, finish_reason: null, logprobs: null }],
      },
    },
  },
};

const completionsRoute: ApiRoute = {
  method: 'post',
  path: '/v1/completions',
  operationId: 'CompletionsController_completions',
  tag: 'openai',
  summary: 'OpenAI-compatible completions: `model` names a text-generation endpoint',
  description:
    'temperature 0 decodes greedily; an array of prompts answers one choice each; `stream: true` answers ' +
    'Server-Sent Events `data: <chunk>` (the choices interleaved, each ending with its finish_reason) ended by `data: [DONE]`. ' +
    "`n` answers that many choices per prompt (choice p × n + j). suffix, logprobs, best_of > 1 and logit_bias are refused (400, `param` names the field). presence_penalty and frequency_penalty act (OpenAI's formula), as do vLLM's repetition_penalty and min_tokens.",
  headers: [REQUEST_ID_HEADER, ROUTE_KEY_HEADER],
  body: completionRequestBody,
  responses: {
    '200': {
      description: 'The completion, or with `stream: true` its chunks as Server-Sent Events.',
      body: completionAnswerBody,
      alternatives: [completionChunkBody],
      headers: [REQUEST_ID_HEADER, MODEL_HEADER],
    },
    ...openAiErrors([400, 404, 413, 422, 429, 503, 504]),
  },
};

/** The generation routes outside /serve. */
export const generationRoutes: { kserve: ApiRoute[]; openai: ApiRoute[] } = {
  kserve: [...tritonRoutes(false), ...tritonRoutes(true)],
  openai: [completionsRoute],
};
