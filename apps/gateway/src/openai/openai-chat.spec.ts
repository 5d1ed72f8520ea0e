import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { MAX_NEW_TOKENS_LIMIT } from '@modelgate/generation';
import { describe, expect, it } from 'vitest';
import { chatChunk, chatUsageChunk, parseOpenAiChatRequest, toChatCompletion } from './openai-chat.js';

const BASE = { model: 'assistant', messages: [{ role: 'user', content: 'hi' }] };

/** The field a refused body names. */
function paramOf(body: unknown): string | undefined {
  try {
    parseOpenAiChatRequest(body);
  } catch (error) {
    if (error instanceof ModelgateError && error.code === ErrorCode.INVALID_ARGUMENT)
      return error.details.field;
    throw error;
  }
  return undefined;
}

describe('parseOpenAiChatRequest', () => {
  it('maps a greedy request with a length to the generation parameters', () => {
    const parsed = parseOpenAiChatRequest({ ...BASE, temperature: 0, max_completion_tokens: 9, stop: '\n' });
    expect(parsed.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(parsed.params).toMatchObject({ maxNewTokens: 9, doSample: false, stop: ['\n'] });
    expect(parsed.lengthGiven).toBe(true);
    expect(parsed.stream).toBe(false);
  });

  it('without a length, lets the reply fill the context up to the generation limit', () => {
    const parsed = parseOpenAiChatRequest(BASE);
    expect(parsed.lengthGiven).toBe(false);
    expect(parsed.params.maxNewTokens).toBe(MAX_NEW_TOKENS_LIMIT);
    expect(parsed.params.doSample).toBe(true);
    expect(parseOpenAiChatRequest({ ...BASE, max_tokens: 5 }).params.maxNewTokens).toBe(5);
  });

  it('joins text parts, keeps names and the roles templates read', () => {
    const parsed = parseOpenAiChatRequest({
      model: 'assistant',
      messages: [
        { role: 'developer', content: 'be brief' },
        {
          role: 'user',
          name: 'ada',
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
        { role: 'assistant', content: 'ok' },
      ],
    });
    expect(parsed.messages).toEqual([
      { role: 'developer', content: 'be brief' },
      { role: 'user', content: 'a\nb', name: 'ada' },
      { role: 'assistant', content: 'ok' },
    ]);
  });

  it('asks for logprobs with logprobs: true, and top_logprobs alternatives with it', () => {
    expect(parseOpenAiChatRequest({ ...BASE, logprobs: true }).params.logprobs).toBe(0);
    expect(parseOpenAiChatRequest({ ...BASE, logprobs: true, top_logprobs: 3 }).params.logprobs).toBe(3);
    expect(parseOpenAiChatRequest({ ...BASE, logprobs: false }).params.logprobs).toBeUndefined();
    expect(parseOpenAiChatRequest({ ...BASE, logprobs: null, top_logprobs: null }).params).not.toHaveProperty(
      'logprobs',
    );
  });

  it('refuses what it does not implement, naming the field', () => {
    expect(paramOf({ ...BASE, logprobs: false })).toBeUndefined();
    expect(paramOf({ ...BASE, top_logprobs: 2 })).toBe('top_logprobs');
    expect(paramOf({ ...BASE, logprobs: true, top_logprobs: 21 })).toBe('top_logprobs');
    expect(paramOf({ ...BASE, n: 2 })).toBeUndefined();
    expect(paramOf({ ...BASE, n: 17 })).toBe('n');
    expect(parseOpenAiChatRequest({ ...BASE, n: 3 }).choices).toBe(3);
    expect(paramOf({ ...BASE, tools: [{}] })).toBe('tools');
    expect(paramOf({ ...BASE, tools: [] })).toBeUndefined();
    expect(paramOf({ ...BASE, tool_choice: 'auto' })).toBe('tool_choice');
    expect(paramOf({ ...BASE, tool_choice: 'none' })).toBeUndefined();
    expect(paramOf({ ...BASE, response_format: { type: 'json_object' } })).toBe('response_format');
    expect(paramOf({ ...BASE, response_format: { type: 'text' } })).toBeUndefined();
    expect(paramOf({ ...BASE, presence_penalty: 0.5 })).toBeUndefined();
    expect(paramOf({ ...BASE, presence_penalty: 3 })).toBe('presence_penalty');
    expect(paramOf({ ...BASE, stream_options: { include_usage: true } })).toBe('stream_options');
    expect(paramOf({ ...BASE, temperature: 0, seed: 1 })).toBe('seed');
    expect(paramOf({ ...BASE, max_tokens: 1, max_completion_tokens: 1 })).toBe('max_tokens');
    expect(paramOf({ ...BASE, echo: true })).toBe('echo');
  });

  it('refuses malformed conversations at the message that is wrong', () => {
    expect(paramOf({ model: 'assistant', messages: [] })).toBe('messages');
    expect(paramOf({ model: 'assistant' })).toBe('messages');
    expect(paramOf({ model: 'assistant', messages: [{ role: 'user' }] })).toBe('messages[0].content');
    expect(paramOf({ model: 'assistant', messages: [{ role: 'tool', content: 'x' }] })).toBe(
      'messages[0].role',
    );
    expect(paramOf({ model: 'assistant', messages: [{ role: 'robot', content: 'x' }] })).toBe(
      'messages[0].role',
    );
    expect(paramOf({ model: 'assistant', messages: [{ role: 'user', content: 'x', tool_calls: [] }] })).toBe(
      'messages[0].tool_calls',
    );
    expect(
      paramOf({ model: 'assistant', messages: [{ role: 'user', content: [{ type: 'image_url' }] }] }),
    ).toBe('messages[0].content[0]');
  });
});

describe('chat answers', () => {
  const identity = { id: 'chatcmpl-x', created: 1, model: 'assistant' };
  const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };

  it("puts each reply in the assistant's message of its choice", () => {
    const replies = [
      { text: 'hello', finishReason: 'stop' as const },
      { text: 'hi', finishReason: 'length' as const },
    ];
    expect(toChatCompletion(identity, replies, usage)).toEqual({
      ...identity,
      object: 'chat.completion',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop', logprobs: null },
        { index: 1, message: { role: 'assistant', content: 'hi' }, finish_reason: 'length', logprobs: null },
      ],
      usage,
    });
  });

  it('writes usage: null on every chunk with include_usage, and the counts on a chunk without choices', () => {
    expect(chatChunk(identity, 0, { content: 'a' }, null, true).usage).toBeNull();
    expect('usage' in chatChunk(identity, 0, { content: 'a' }, null, false)).toBe(false);
    expect(chatUsageChunk(identity, usage)).toEqual({
      ...identity,
      object: 'chat.completion.chunk',
      choices: [],
      usage,
    });
  });
});
