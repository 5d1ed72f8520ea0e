// What a generation starts from, made ready for the worker: a text prompt (text-generation:
// tokenized, fitted to the endpoint's and the model's limits), a chat (text-generation: rendered by
// the model's chat template, then tokenized as it stands), or an image (image-to-text: decoded and
// preprocessed into pixel_values, the decoder starting from its decoder_start_token_id).
import { type EndpointSpec, ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type GenerationParams } from '@modelgate/generation';
import { type ChatMessage, type ImageInput, type PixelValues } from '@modelgate/processing';
import { type ServableModel } from '../../endpoints/endpoint-table.js';
import { type ConcurrencyGate } from '../concurrency-gate.js';
import { preprocessImage } from '../image-input.js';
import { decodeSkippingSpecial, fitPrompt, tokenTextOf } from './prompt-limits.js';

/** What a generation continues: a text prompt (text-generation), or an image to caption (image-to-text). */
export type GenerationInput =
  | { kind: 'text'; prompt: string }
  /**
   * A conversation, which the model's chat template turns into the prompt (the assistant's turn
   * opened). `lengthGiven` false: the reply may take the rest of the model's context (at most
   * params.maxNewTokens), as vLLM's chat does when max_tokens is absent.
   */
  | { kind: 'chat'; messages: ChatMessage[]; lengthGiven: boolean }
  /** `lengthGiven`: the request named max_new_tokens (else the model's default length). */
  | { kind: 'image'; image: ImageInput; lengthGiven: boolean };

/** The generative task that reads `input`. */
export function taskOfInput(input: GenerationInput): 'text-generation' | 'image-to-text' {
  return input.kind === 'image' ? 'image-to-text' : 'text-generation';
}

/** A generation ready for the worker, and how its ids become the answer's text. */
export interface PreparedGeneration {
  /** The prompt's ids; image-to-text: the decoder's start token. */
  inputIds: number[];
  /** Most new tokens: the request's, or for a caption that names none the model's default length. */
  maxNewTokens: number;
  /** image-to-text: the image, [3, H, W]. */
  pixelValues?: PixelValues;
  /** Ids that end the sequence. */
  eosTokenIds: number[];
  /** Ids decoded ahead of the generated ones, whose text (if any) starts the answer. */
  prefixIds: number[];
  /** The tokenizer's decode of ids, special tokens skipped. */
  decode: (ids: readonly number[]) => string;
  /** One token's text alone, special tokens shown (a logprob's `token`). */
  tokenText: (id: number) => string;
  /** Clean the text's tokenization spaces (tokenizer_config.json's clean_up_tokenization_spaces). */
  cleanUpSpaces: boolean;
  /** Trim the text's leading and trailing whitespace (as transformers.js' image-to-text pipeline). */
  trim: boolean;
}

/** A template that adds nothing: a decoder start token is the whole prompt. */
const NO_SPECIAL_TOKENS = {
  addSpecialTokens: (first: readonly number[]) => ({ ids: first }),
  specialTokenCount: () => 0,
};

/**
 * Checks what a generation of `input` on `model` can be refused for without running it: the
 * model's task, and a text prompt's limits (fitPrompt) where the model's tokenizer is loaded here.
 * The check of an asynchronous request before it is queued; an image is decoded only when it runs.
 */
export function checkGenerationInput(
  model: ServableModel,
  endpoint: EndpointSpec,
  input: GenerationInput,
  params: GenerationParams,
): void {
  refuseInputOfAnotherTask(model, input);
  if (input.kind !== 'image' && model.tokenizer) promptIds(model, model.tokenizer, endpoint, input, params);
}

function refuseInputOfAnotherTask(model: ServableModel, input: GenerationInput): void {
  const spec = model.spec;
  if (spec.task === taskOfInput(input)) return;
  throw new ModelgateError(
    ErrorCode.INVALID_ARGUMENT,
    spec.task === 'image-to-text'
      ? `model ${spec.id} is an image-to-text model: it captions an image and takes no text prompt; ` +
          'POST the image to /serve/<endpoint> of an endpoint that routes to it'
      : `model ${spec.id} has task ${spec.task}, not ${taskOfInput(input)}: it cannot ` +
          (input.kind === 'image' ? 'caption an image' : 'generate text'),
  );
}

/**
 * A text prompt's ids (wrapped in the tokenizer's special tokens) or a chat's (its template's
 * text tokenized as it stands: the template writes the special tokens, as apply_chat_template
 * does), fitted to the endpoint's and the model's limits.
 */
function promptIds(
  model: ServableModel,
  tokenizer: NonNullable<ServableModel['tokenizer']>,
  endpoint: EndpointSpec | undefined,
  input: Exclude<GenerationInput, { kind: 'image' }>,
  params: GenerationParams,
): number[] {
  const chat = input.kind === 'chat';
  const text = chat ? chatPrompt(model, tokenizer, input.messages) : input.prompt;
  // A reply of no given length fits the rest of the context: the prompt must leave room for one token.
  const fitTokens = fillsContext(input) ? 1 : params.maxNewTokens;
  return fitPrompt(tokenizer.tokenize(text), fitTokens, chat ? NO_SPECIAL_TOKENS : tokenizer, {
    maxPositions: tokenizer.modelConfig.maxPositionEmbeddings,
    maxPromptTokens: endpoint?.preprocessing.maxTokens,
    truncation: endpoint?.preprocessing.truncation ?? false,
  });
}

/** Whether the reply of `input` takes the rest of the model's context (a chat with no max_tokens). */
function fillsContext(input: GenerationInput): boolean {
  return input.kind === 'chat' && !input.lengthGiven;
}

/** The prompt text of a chat: the model's chat template, the assistant's turn opened; 400 without one. */
function chatPrompt(
  model: ServableModel,
  tokenizer: NonNullable<ServableModel['tokenizer']>,
  messages: readonly ChatMessage[],
): string {
  const template = tokenizer.chatTemplate;
  if (!template) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `model ${model.spec.id} has no chat template (tokenizer_config.json chat_template), so it cannot ` +
        'read a conversation: send a prompt to /v1/completions, or register a version whose ' +
        'tokenizer_config.json carries a chat_template',
      { field: 'messages' },
    );
  }
  return template.render(messages, { addGenerationPrompt: true });
}

/**
 * Prepares `input` for `model`: 400 when the model's task reads another kind of input (a text
 * prompt for an image-to-text model names the route that takes its image), 503 when its tokenizer
 * is not loaded on this gateway, the prompt limits of fitPrompt (400, 422), and an image's
 * decoding errors (400, 413, 415). `endpoint` supplies the prompt and image limits (an image
 * always comes through one).
 */
export async function prepareGeneration(
  model: ServableModel,
  endpoint: EndpointSpec | undefined,
  input: GenerationInput,
  params: GenerationParams,
  imageDecodes: ConcurrencyGate,
): Promise<PreparedGeneration> {
  const spec = model.spec;
  refuseInputOfAnotherTask(model, input);
  const tokenizer = model.tokenizer;
  if (!tokenizer) {
    // A gateway-side problem (the model's tokenizer did not load here), not the request's.
    throw new ModelgateError(
      ErrorCode.UNAVAILABLE,
      `model ${spec.id} cannot generate on this gateway: its tokenizer is not loaded`,
    );
  }
  const decode = decodeSkippingSpecial(tokenizer);
  const tokenText = tokenTextOf(tokenizer);
  if (input.kind !== 'image') {
    const inputIds = promptIds(model, tokenizer, endpoint, input, params);
    const eosTokenIds = tokenizer.modelConfig.eosTokenIds ?? [];
    const positions = tokenizer.modelConfig.maxPositionEmbeddings;
    const rest = positions === undefined ? params.maxNewTokens : positions - inputIds.length;
    return {
      inputIds,
      maxNewTokens: fillsContext(input) ? Math.min(params.maxNewTokens, rest) : params.maxNewTokens,
      eosTokenIds,
      prefixIds: [],
      decode,
      tokenText,
      cleanUpSpaces: tokenizer.cleanUpTokenizationSpaces,
      trim: false,
    };
  }
  const caption = model.caption;
  if (!caption || !endpoint) {
    throw new ModelgateError(
      ErrorCode.INTERNAL,
      `model ${spec.id}: an image reached generation without its setup`,
    );
  }
  const start = [caption.decoderStartTokenId];
  const maxNewTokens = input.lengthGiven ? params.maxNewTokens : caption.defaultMaxNewTokens;
  const inputIds = fitPrompt(start, maxNewTokens, NO_SPECIAL_TOKENS, {
    // The worker checks preparation's figure (the decoder's n_positions): the same limit, the same answer.
    maxPositions: spec.generation?.maxPositions ?? caption.maxPositions,
    truncation: false,
  });
  const pixelValues = await preprocessImage(model, endpoint, input.image, imageDecodes);
  // transformers.js decodes the whole output, start token included (special: skipped), then trims.
  return {
    inputIds,
    maxNewTokens,
    pixelValues,
    eosTokenIds: caption.eosTokenIds,
    prefixIds: start,
    decode,
    tokenText,
    cleanUpSpaces: tokenizer.cleanUpTokenizationSpaces,
    trim: true,
  };
}
