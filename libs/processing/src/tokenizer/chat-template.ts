// A model's chat template (tokenizer_config.json's `chat_template`, a Jinja template) rendered the
// way transformers does: the messages, add_generation_prompt and the tokenizer's special tokens as
// variables. The only file that imports the template engine (@huggingface/jinja, the one
// transformers.js uses). The rendered text is tokenized without adding special tokens: the
// template writes them (apply_chat_template tokenizes with add_special_tokens=False).
import { Template } from '@huggingface/jinja';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { addedTokenContent } from './added-token.js';

/** One turn of a conversation, as the OpenAI chat API and chat templates read it. */
export interface ChatMessage {
  role: string;
  content: string;
  /** The speaker's name, when the client gave one (templates that know it use it). */
  name?: string;
}

/** A model's chat template, compiled. */
export interface ChatTemplate {
  /**
   * The prompt text of `messages`; with `addGenerationPrompt`, the template's opening of the
   * assistant's turn follows. A template that raises (raise_exception: a role order it does not
   * accept) or fails is a 400 with its message.
   */
  render(messages: readonly ChatMessage[], options: { addGenerationPrompt: boolean }): string;
}

/** The special-token variables transformers passes to a template, from tokenizer_config.json. */
const SPECIAL_TOKEN_KEYS = [
  'bos_token',
  'eos_token',
  'unk_token',
  'sep_token',
  'pad_token',
  'cls_token',
  'mask_token',
] as const;

/**
 * The template text tokenizer_config.json names: `chat_template` as a string, or as a list of
 * named templates (`[{name, template}]`), of which transformers uses `default`.
 */
export function chatTemplateText(tokenizerConfig: Record<string, unknown>): string | undefined {
  const declared = tokenizerConfig.chat_template;
  if (typeof declared === 'string') return declared.length > 0 ? declared : undefined;
  if (!Array.isArray(declared)) return undefined;
  for (const entry of declared as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { name, template } = entry as { name?: unknown; template?: unknown };
    if (name === 'default' && typeof template === 'string') return template;
  }
  return undefined;
}

function templateError(message: string, cause: unknown): ModelgateError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new ModelgateError(
    ErrorCode.INVALID_ARGUMENT,
    `${message}: ${reason}`,
    { field: 'messages' },
    { cause },
  );
}

/**
 * The chat template of a tokenizer_config.json, or undefined when it has none. Compiled on first
 * use: a template the engine cannot parse is refused when a chat is asked of it (400 naming the
 * parse error), and the model serves everything else.
 */
export function loadChatTemplate(tokenizerConfig: Record<string, unknown>): ChatTemplate | undefined {
  const text = chatTemplateText(tokenizerConfig);
  if (text === undefined) return undefined;
  const specialTokens: Record<string, string> = {};
  for (const key of SPECIAL_TOKEN_KEYS) {
    const content = addedTokenContent(tokenizerConfig[key]);
    if (content !== undefined) specialTokens[key] = content;
  }
  let compiled: Template | undefined;
  return {
    render(messages, { addGenerationPrompt }) {
      if (!compiled) {
        try {
          compiled = new Template(text);
        } catch (error) {
          throw templateError(
            "the model's chat template (tokenizer_config.json chat_template) cannot be parsed",
            error,
          );
        }
      }
      try {
        return compiled.render({
          ...specialTokens,
          messages: messages.map((message) => ({ ...message })),
          add_generation_prompt: addGenerationPrompt,
        });
      } catch (error) {
        throw templateError("the model's chat template refused the conversation", error);
      }
    },
  };
}
