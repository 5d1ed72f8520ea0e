/**
 * The OpenAI chat completions contract (`POST /v1/chat/completions`), as vLLM and TGI offer it:
 * the request (the conversation, and the sampling fields it shares with completions:
 * openai-sampling.ts) checked and mapped to a chat input and GenerationParams, and the answers
 * (one JSON, or the chunks of a stream) built. The model's chat template turns the messages into
 * the prompt (serving/generation/generation-input.ts). Options modelgate does not implement are
 * refused naming the field (`param`), never ignored. Pure: no I/O.
 */
import { type ModelgateError } from '@modelgate/contracts';
import { type GenerationParams, MAX_NEW_TOKENS_LIMIT } from '@modelgate/generation';
import { type ChatMessage } from '@modelgate/processing';
import { z } from 'zod';
import { type ChatCompletion, type ChatCompletionChunk } from './chat-answer.schema.js';
import { type CompletionUsage, type OpenAiFinishReason } from './completion-answer.schema.js';
import { type CompletionIdentity } from './openai-completions.js';
import { type ChatLogprobs, chatLogprobsFields } from './openai-logprobs.js';
import {
  choicesField,
  given,
  maxTokensField,
  refuse,
  samplingFields,
  samplingParams,
  streamOptionsOf,
  unsupportedSampling,
} from './openai-sampling.js';

/** Most messages in one conversation. */
export const MAX_MESSAGES = 256;

/** The roles a chat template reads; tool turns are refused (no tool calling). */
const ROLES = ['system', 'developer', 'user', 'assistant'] as const;

const textPartSchema = z
  .object({
    type: z.string().describe('`text`: other parts (images, audio, files) are refused'),
    text: z.string().optional().describe('The text of a `text` part'),
  })
  .describe('A content part');

const messageSchema = z
  .object({
    role: z.string().describe(`Who speaks: ${ROLES.join(', ')} (tool turns are refused)`),
    content: z
      .union([z.string(), z.array(textPartSchema).min(1)], {
        error: 'must be a string or a non-empty array of text parts',
      })
      .describe('The text, or text parts (joined)'),
    name: z.string().min(1).optional().describe("The speaker's name, passed to the chat template"),
  })
  .strict()
  .describe('One turn of the conversation');

export const openAiChatRequestSchema = z
  .object({
    model: z.string().min(1).describe('The endpoint (task text-generation) whose model has a chat template'),
    messages: z
      .array(messageSchema)
      .min(1)
      .max(MAX_MESSAGES)
      .describe(
        `The conversation, 1 to ${MAX_MESSAGES} messages, rendered by the model's chat template (tokenizer_config.json chat_template) with the assistant's turn opened`,
      ),
    max_completion_tokens: maxTokensField("the rest of the model's context"),
    max_tokens: maxTokensField("the rest of the model's context").describe(
      'The older name of max_completion_tokens (refused with it)',
    ),
    n: choicesField,
    ...samplingFields,
    ...chatLogprobsFields,
    tools: z.array(z.unknown()).nullable().optional().describe('Not supported: only null or an empty array'),
    tool_choice: z.unknown().optional().describe('Not supported: only null or `none`'),
    parallel_tool_calls: z.boolean().nullable().optional().describe('Accepted and unused without tools'),
    response_format: z
      .object({ type: z.string().describe('`text`: JSON modes are refused') })
      .nullable()
      .optional()
      .describe('Only `{"type": "text"}`'),
  })
  .strict();

/** The request body as the schema reads it. */
export type OpenAiChatBody = z.infer<typeof openAiChatRequestSchema>;

/** A checked chat request, mapped to what the generation service takes. */
export interface ChatRequest {
  /** The endpoint. */
  model: string;
  messages: ChatMessage[];
  params: GenerationParams;
  /** max_tokens (or max_completion_tokens) was given; else the reply may fill the model's context. */
  lengthGiven: boolean;
  stream: boolean;
  /** A last chunk carries `usage` (streams only). */
  includeUsage: boolean;
  /** OpenAI's end-user id (for the request's log line). */
  user?: string;
  /** Choices (`n`), each a generation of its own. */
  choices: number;
}

/** The options OpenAI has and modelgate refuses unless they hold their neutral value. */
function unsupportedOption(body: OpenAiChatBody): ModelgateError | undefined {
  if (given(body.top_logprobs) && body.logprobs !== true) {
    return refuse('top_logprobs', 'needs logprobs: true');
  }
  if (given(body.tools) && body.tools.length > 0) {
    return refuse('tools', 'tool calling is not supported: send the conversation without tools');
  }
  if (given(body.tool_choice) && body.tool_choice !== 'none') {
    return refuse('tool_choice', 'tool calling is not supported (only none)');
  }
  if (given(body.response_format) && body.response_format.type !== 'text') {
    return refuse('response_format', 'only {"type": "text"} is supported (no JSON mode)');
  }
  if (given(body.max_tokens) && given(body.max_completion_tokens)) {
    return refuse('max_tokens', 'give max_completion_tokens or max_tokens, not both');
  }
  return unsupportedSampling(body);
}

/** The conversation as chat templates read it: known roles, content parts joined. */
function toMessages(body: OpenAiChatBody): ChatMessage[] {
  return body.messages.map((message, index) => {
    const field = `messages[${index}]`;
    if (message.role === 'tool' || message.role === 'function') {
      throw refuse(`${field}.role`, `${message.role} messages are not supported (no tool calling)`);
    }
    if (!(ROLES as readonly string[]).includes(message.role)) {
      throw refuse(`${field}.role`, `must be one of ${ROLES.join(', ')}`);
    }
    const content =
      typeof message.content === 'string'
        ? message.content
        : message.content
            .map((part, partIndex) => {
              if (part.type !== 'text' || part.text === undefined) {
                throw refuse(
                  `${field}.content[${partIndex}]`,
                  `only text parts ({"type": "text", "text": …}) are supported, not ${JSON.stringify(part.type)}`,
                );
              }
              return part.text;
            })
            .join('\n');
    return { role: message.role, content, ...(message.name === undefined ? {} : { name: message.name }) };
  });
}

/** The checked request; INVALID_ARGUMENT naming the field (`param`) otherwise. */
export function parseOpenAiChatRequest(body: unknown): ChatRequest {
  const parsed = openAiChatRequestSchema.safeParse(body);
  if (!parsed.success) throw schemaRefusal(parsed.error);
  const request = parsed.data;
  const unsupported = unsupportedOption(request);
  if (unsupported) throw unsupported;
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  return {
    model: request.model,
    messages: toMessages(request),
    params: {
      ...samplingParams(request, maxTokens ?? undefined, MAX_NEW_TOKENS_LIMIT),
      ...(request.logprobs === true ? { logprobs: request.top_logprobs ?? 0 } : {}),
    },
    lengthGiven: given(maxTokens),
    ...streamOptionsOf(request),
    choices: request.n ?? 1,
  };
}

function schemaRefusal(error: z.ZodError): ModelgateError {
  const issue = error.issues[0];
  const path = (issue?.path ?? []).map((part) =>
    typeof part === 'number' ? `[${part}]` : `.${String(part)}`,
  );
  const field = path.join('').replace(/^\./, '');
  if (issue?.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    const at = field === '' ? key : `${field}.${key}`;
    return refuse(at, `is not a parameter of /v1/chat/completions${field === '' ? '' : ' messages'}`);
  }
  return refuse(field === '' ? 'body' : field, issue?.message ?? 'invalid request');
}

/** The non-streamed answer: the assistant's message of each choice, in order. */
export function toChatCompletion(
  identity: CompletionIdentity,
  replies: readonly { text: string; finishReason: OpenAiFinishReason; logprobs?: ChatLogprobs }[],
  usage: CompletionUsage,
): ChatCompletion {
  return {
    ...identity,
    object: 'chat.completion',
    choices: replies.map(({ text, finishReason, logprobs = null }, index) => ({
      index,
      message: { role: 'assistant', content: text },
      finish_reason: finishReason,
      logprobs,
    })),
    usage,
  };
}

/**
 * One chunk of a stream: `delta` (the role on the first chunk, then text; empty on the last,
 * which has the finish reason). With include_usage every chunk has `usage: null`.
 */
export function chatChunk(
  identity: CompletionIdentity,
  index: number,
  delta: ChatCompletionChunk['choices'][number]['delta'],
  finishReason: OpenAiFinishReason | null,
  includeUsage: boolean,
  logprobs: ChatLogprobs = null,
): ChatCompletionChunk {
  return {
    ...identity,
    object: 'chat.completion.chunk',
    choices: [{ index, delta, finish_reason: finishReason, logprobs }],
    ...(includeUsage ? { usage: null } : {}),
  };
}

/** The usage chunk of `stream_options.include_usage`, sent after the last choice chunk. */
export function chatUsageChunk(identity: CompletionIdentity, usage: CompletionUsage): ChatCompletionChunk {
  return { ...identity, object: 'chat.completion.chunk', choices: [], usage };
}
