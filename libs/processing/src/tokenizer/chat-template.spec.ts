import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { chatTemplateText, loadChatTemplate } from './chat-template.js';

const TURNS =
  "{{ bos_token }}{% for m in messages %}[{{ m['role'] }}]{{ m['content'] }}{{ eos_token }}{% endfor %}" +
  '{% if add_generation_prompt %}[assistant]{% endif %}';

describe('chatTemplateText', () => {
  it('reads a string, or the default of a list of named templates, and nothing else', () => {
    expect(chatTemplateText({ chat_template: 'x' })).toBe('x');
    expect(
      chatTemplateText({
        chat_template: [
          { name: 'tool_use', template: 't' },
          { name: 'default', template: 'd' },
        ],
      }),
    ).toBe('d');
    expect(chatTemplateText({ chat_template: [{ name: 'tool_use', template: 't' }] })).toBeUndefined();
    expect(chatTemplateText({ chat_template: '' })).toBeUndefined();
    expect(chatTemplateText({})).toBeUndefined();
  });
});

describe('loadChatTemplate', () => {
  it('is undefined for a tokenizer without a template', () => {
    expect(loadChatTemplate({ eos_token: '</s>' })).toBeUndefined();
  });

  it("renders the messages with the config's special tokens (strings or AddedToken objects)", () => {
    const template = loadChatTemplate({
      chat_template: TURNS,
      bos_token: { content: '<s>', special: true },
      eos_token: '</s>',
    });
    const messages = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ];
    expect(template?.render(messages, { addGenerationPrompt: true })).toBe(
      '<s>[user]hi</s>[assistant]hello</s>[assistant]',
    );
    expect(template?.render(messages, { addGenerationPrompt: false })).toBe(
      '<s>[user]hi</s>[assistant]hello</s>',
    );
  });

  it("answers 400 with the template's own message when it raises", () => {
    const template = loadChatTemplate({
      chat_template:
        "{% if messages[0]['role'] != 'user' %}{{ raise_exception('Conversations must start with a user message') }}{% endif %}ok",
    });
    let caught: unknown;
    try {
      template?.render([{ role: 'assistant', content: 'x' }], { addGenerationPrompt: true });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ModelgateError);
    expect((caught as ModelgateError).code).toBe(ErrorCode.INVALID_ARGUMENT);
    expect((caught as ModelgateError).message).toContain('Conversations must start with a user message');
  });

  it('refuses a template the engine cannot parse only when a chat is rendered', () => {
    const template = loadChatTemplate({ chat_template: '{% for m in messages %}unclosed' });
    expect(template).toBeDefined();
    expect(() => template?.render([{ role: 'user', content: 'x' }], { addGenerationPrompt: true })).toThrow(
      /chat template .*cannot be parsed/,
    );
  });
});
