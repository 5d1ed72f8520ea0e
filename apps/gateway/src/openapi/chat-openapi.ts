// OpenAI's chat completions (`POST /v1/chat/completions`) and model list (`GET /v1/models`,
// `/v1/models/{id}`) in the OpenAPI document. A streamed answer is documented as
// `text/event-stream` whose schema is one event's `data`.
import { type ApiBody, type ApiRoute } from '@modelgate/contracts';
import { z } from 'zod';
import { chatCompletionChunkSchema, chatCompletionSchema } from '../openai/chat-answer.schema.js';
import { openAiChatRequestSchema } from '../openai/openai-chat.js';
import { openAiErrorBodySchema } from '../openai/openai-errors.js';
import { openAiModelListSchema, openAiModelSchema } from '../openai/openai-models.js';
import { openAiErrors } from './generation-openapi.js';
import { MODEL_HEADER, REQUEST_ID_HEADER, ROUTE_KEY_HEADER } from './serve-openapi.js';

const IDENTITY = { id: 'chatcmpl-7Qe1x9aB', created: 1_700_000_000, model: 'assistant' };

const chatRequestBody: ApiBody = {
  name: 'ChatCompletionRequest',
  schema: openAiChatRequestSchema,
  examples: {
    greedy: {
      summary: 'Greedy, 32 tokens at most',
      value: {
        model: 'assistant',
        messages: [
          { role: 'system', content: 'You answer in one sentence.' },
          { role: 'user', content: 'What is the capital of France?' },
        ],
        max_completion_tokens: 32,
        temperature: 0,
      },
    },
    stream: {
      summary: 'Streamed with usage',
      value: {
        model: 'assistant',
        messages: [{ role: 'user', content: 'Tell me a story.' }],
        stream: true,
        stream_options: { include_usage: true },
      },
    },
  },
};

const chatAnswerBody: ApiBody = {
  name: 'ChatCompletion',
  schema: chatCompletionSchema,
  examples: {
    reply: {
      summary: "The assistant's reply",
      value: {
        ...IDENTITY,
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: 'The capital of France is Paris.' },
            finish_reason: 'stop',
            logprobs: null,
          },
        ],
        usage: { prompt_tokens: 31, completion_tokens: 8, total_tokens: 39 },
      },
    },
  },
};

const chatChunkBody: ApiBody = {
  name: 'ChatCompletionChunk',
  contentType: 'text/event-stream',
  schema: z.union([
    chatCompletionChunkSchema.meta({
      title: 'chunk',
      description: 'The role, a text delta, the last chunk, or the usage chunk',
    }),
    openAiErrorBodySchema.meta({ title: 'error', description: 'An error after the stream began' }),
  ]),
  examples: {
    delta: {
      summary: 'A delta (the stream ends with `data: [DONE]`)',
      value: {
        ...IDENTITY,
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta: { content: ' Paris' }, finish_reason: null, logprobs: null }],
      },
    },
  },
};

const MODEL_EXAMPLE = {
  id: 'assistant',
  object: 'model',
  created: 1_700_000_000,
  owned_by: 'modelgate',
  task: 'text-generation',
};

/** The OpenAI chat and model-list routes. */
export const chatRoutes: ApiRoute[] = [
  {
    method: 'post',
    path: '/v1/chat/completions',
    operationId: 'ChatCompletionsController_chat',
    tag: 'openai',
    summary:
      'OpenAI-compatible chat: `model` names a text-generation endpoint whose model has a chat template',
    description:
      "The messages are rendered by the model's chat template (tokenizer_config.json `chat_template`, as " +
      "transformers' apply_chat_template with add_generation_prompt); a model without one answers 400. " +
      'temperature 0 decodes greedily; without max_completion_tokens (or max_tokens) the reply may take the rest of ' +
      "the model's context. `stream: true` answers Server-Sent Events `data: <chunk>` (the role first, then the " +
      'deltas, then an empty delta with the finish_reason) ended by `data: [DONE]`; `n` answers that many choices. logprobs, tools, ' +
      "JSON response formats, logit_bias are refused (400, `param` names the field). presence_penalty and frequency_penalty act (OpenAI's formula), as do vLLM's repetition_penalty and min_tokens.",
    headers: [REQUEST_ID_HEADER, ROUTE_KEY_HEADER],
    body: chatRequestBody,
    responses: {
      '200': {
        description: 'The reply, or with `stream: true` its chunks as Server-Sent Events.',
        body: chatAnswerBody,
        alternatives: [chatChunkBody],
        headers: [REQUEST_ID_HEADER, MODEL_HEADER],
      },
      ...openAiErrors([400, 404, 413, 422, 429, 503, 504]),
    },
  },
  {
    method: 'get',
    path: '/v1/models',
    operationId: 'ModelsController_list',
    tag: 'openai',
    summary: 'The endpoints the OpenAI routes serve (text-generation and feature-extraction), as models',
    responses: {
      '200': {
        description: "OpenAI's model list.",
        body: {
          name: 'ModelList',
          schema: openAiModelListSchema,
          examples: { list: { summary: 'One generator', value: { object: 'list', data: [MODEL_EXAMPLE] } } },
        },
      },
      ...openAiErrors([503]),
    },
  },
  {
    method: 'get',
    path: '/v1/models/{id}',
    operationId: 'ModelsController_get',
    tag: 'openai',
    summary: 'One endpoint the OpenAI routes serve, as a model',
    pathParams: z.object({ id: z.string().describe('The endpoint name') }),
    responses: {
      '200': {
        description: 'The model.',
        body: {
          name: 'Model',
          schema: openAiModelSchema,
          examples: { model: { summary: 'A generator', value: MODEL_EXAMPLE } },
        },
      },
      ...openAiErrors([404, 503]),
    },
  },
];
