import { EventEmitter } from 'node:events';
import { type ServerResponse } from 'node:http';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type Logger } from '@modelgate/observability';
import { type FastifyReply } from 'fastify';
import { describe, expect, it } from 'vitest';
import { type GenerationEvent, type GenerationStream } from '../serving/generation/generation.service.js';
import {
  type GenerationSseFormat,
  mergeGenerations,
  renameErrorFields,
  sendGenerationSse,
} from './generation-answer.js';

/**
 * A ServerResponse stand-in that records what is written; with `highWaterMark` set, `write` says
 * false once that many frames wait, until `drain()` (a client that reads slowly).
 */
class RecordedResponse extends EventEmitter {
  statusCode = 0;
  headers: Record<string, string> = {};
  body = '';
  trailers: Record<string, string> | undefined;
  writableEnded = false;
  destroyed = false;
  writableNeedDrain = false;
  highWaterMark = Infinity;
  buffered = 0;
  setHeader(name: string, value: string): void {
    this.headers[name.toLowerCase()] = value;
  }
  flushHeaders(): void {}
  write(chunk: string): boolean {
    this.body += chunk;
    this.buffered++;
    if (this.buffered >= this.highWaterMark) this.writableNeedDrain = true;
    return !this.writableNeedDrain;
  }
  drain(): void {
    this.buffered = 0;
    this.writableNeedDrain = false;
    this.emit('drain');
  }
  addTrailers(trailers: Record<string, string>): void {
    this.trailers = trailers;
  }
  end(): void {
    this.writableEnded = true;
  }
}

function fakeReply(res: RecordedResponse): FastifyReply & { hijacked: boolean } {
  const reply = {
    hijacked: false,
    raw: res as unknown as ServerResponse,
    request: { id: 'req-1' },
    hijack() {
      reply.hijacked = true;
      return reply;
    },
    getHeaders: () => ({ 'x-request-id': 'req-1' }),
  };
  return reply as unknown as FastifyReply & { hijacked: boolean };
}

function streamOf(events: GenerationEvent[], failure?: Error): GenerationStream {
  return {
    model: 'gpt',
    version: '1',
    route: 'model',
    endpoint: undefined,
    promptTokens: 3,
    events: (async function* () {
      await Promise.resolve();
      yield* events;
      if (failure) throw failure;
    })(),
  };
}

const end: GenerationEvent = {
  type: 'end',
  finishReason: 'eos',
  text: 'ab',
  promptTokens: 3,
  generatedTokens: 2,
  timings: { queueMs: 0, timeToFirstTokenMs: 1, totalMs: 2 },
};

const format: GenerationSseFormat = {
  start: () => [{ prompt: true }],
  delta: (delta) => ({ text: delta.text }),
  end: (last) => [{ finish: last.finishReason }],
  error: (status, body) => ({ status, message: body.error.message }),
  done: 'data: [DONE]',
};

const logger = { error: () => undefined } as unknown as Logger;

describe('sendGenerationSse', () => {
  it("writes the route's events in order, skipping empty deltas, then the done line, with the reply's headers", async () => {
    const res = new RecordedResponse();
    const reply = fakeReply(res);
    const events: GenerationEvent[] = [
      { type: 'delta', text: 'a', tokenIds: [1] },
      { type: 'delta', text: '', tokenIds: [2] },
      { type: 'delta', text: 'b', tokenIds: [3] },
      end,
    ];
    const sent = await sendGenerationSse(
      reply,
      [streamOf(events)],
      format,
      { 'x-modelgate-model': 'gpt:1' },
      logger,
    );
    expect(sent).toEqual({ outcome: 'ended' });
    expect(reply.hijacked).toBe(true);
    expect(res.headers).toMatchObject({
      'content-type': 'text/event-stream; charset=utf-8',
      'x-request-id': 'req-1',
      'x-modelgate-model': 'gpt:1',
    });
    expect(res.body).toBe(
      'data: {"prompt":true}\n\ndata: {"text":"a"}\n\ndata: {"text":"b"}\n\ndata: {"finish":"eos"}\n\ndata: [DONE]\n\n',
    );
    expect(res.writableEnded).toBe(true);
  });

  it('ends with an error event in the route format when the generation fails after it began', async () => {
    const res = new RecordedResponse();
    const failure = new ModelgateError(ErrorCode.DEADLINE_EXCEEDED, 'too slow');
    const events: GenerationEvent[] = [{ type: 'delta', text: 'a', tokenIds: [1] }];
    const sent = await sendGenerationSse(fakeReply(res), [streamOf(events, failure)], format, {}, logger);
    expect(sent).toEqual({ outcome: 'failed', error: failure });
    expect(res.body).toBe(
      'data: {"prompt":true}\n\ndata: {"text":"a"}\n\ndata: {"status":504,"message":"too slow"}\n\n',
    );
    expect(res.writableEnded).toBe(true);
  });

  it('says cancelled, without the done line, when the stream ends without its end event (the client went away)', async () => {
    const res = new RecordedResponse();
    const events: GenerationEvent[] = [{ type: 'delta', text: 'a', tokenIds: [1] }];
    const sent = await sendGenerationSse(fakeReply(res), [streamOf(events)], format, {}, logger);
    expect(sent).toEqual({ outcome: 'cancelled' });
    expect(res.body).not.toContain('[DONE]');
  });
});

describe('sendGenerationSse: named events, trailers and a slow reader', () => {
  it('names the end and error events and sends the trailers of a stream that ended', async () => {
    const res = new RecordedResponse();
    const named: GenerationSseFormat = {
      ...format,
      start: () => [],
      done: undefined,
      names: { end: 'end', error: 'error' },
      trailers: (ends) => ({ 'server-timing': `total;dur=${ends[0]!.timings.totalMs}` }),
    };
    await sendGenerationSse(fakeReply(res), [streamOf([end])], named, {}, logger);
    expect(res.body).toBe('event: end\ndata: {"finish":"eos"}\n\n');
    expect(res.trailers).toEqual({ 'server-timing': 'total;dur=2' });
    const failed = new RecordedResponse();
    const failure = new ModelgateError(ErrorCode.DEADLINE_EXCEEDED, 'too slow');
    await sendGenerationSse(fakeReply(failed), [streamOf([], failure)], named, {}, logger);
    expect(failed.body).toBe('event: error\ndata: {"status":504,"message":"too slow"}\n\n');
    expect(failed.trailers).toBeUndefined();
  });

  it('stops reading the generation while the response buffer is full, until it drains', async () => {
    const res = new RecordedResponse();
    res.highWaterMark = 1;
    let read = 0;
    const stream: GenerationStream = {
      ...streamOf([]),
      events: (async function* (): AsyncGenerator<GenerationEvent> {
        for (const text of ['a', 'b']) {
          read++;
          await Promise.resolve();
          yield { type: 'delta', text, tokenIds: [read] };
        }
        read++;
        yield end;
      })(),
    };
    const sending = sendGenerationSse(fakeReply(res), [stream], { ...format, start: () => [] }, {}, logger);
    await new Promise((resolve) => setImmediate(resolve));
    // The first delta filled the buffer: the second is not read until the client caught up.
    expect(res.body).toBe('data: {"text":"a"}\n\n');
    expect(read).toBeLessThanOrEqual(2);
    res.drain();
    await new Promise((resolve) => setImmediate(resolve));
    expect(res.body).toBe('data: {"text":"a"}\n\ndata: {"text":"b"}\n\n');
    res.highWaterMark = Infinity;
    res.drain();
    expect(await sending).toEqual({ outcome: 'ended' });
    expect(read).toBe(3);
  });
});

describe('sendGenerationSse with several generations', () => {
  it('interleaves their events with their index, and calls finish once all ended, their ends in order', async () => {
    const res = new RecordedResponse();
    const second = { ...end, text: 'c', generatedTokens: 1 } as GenerationEvent;
    const streams = [
      streamOf([
        { type: 'delta', text: 'a', tokenIds: [1] },
        { type: 'delta', text: 'b', tokenIds: [2] },
        end,
      ]),
      streamOf([{ type: 'delta', text: 'c', tokenIds: [3] }, second]),
    ];
    const finished: unknown[] = [];
    const indexed: GenerationSseFormat = {
      ...format,
      start: () => [],
      delta: (delta, index) => ({ text: delta.text, index }),
      end: (last, index) => [{ end: index }],
      finish: (ends) => {
        finished.push(...ends.map((e) => e.text));
        return [{ finished: ends.length }];
      },
    };
    const sent = await sendGenerationSse(fakeReply(res), streams, indexed, {}, logger);
    expect(sent).toEqual({ outcome: 'ended' });
    const data = res.body
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: {'))
      .map((frame) => JSON.parse(frame.slice('data: '.length)) as Record<string, unknown>);
    expect(data.filter((d) => d.index === 0).map((d) => d.text)).toEqual(['a', 'b']);
    expect(data.filter((d) => d.index === 1).map((d) => d.text)).toEqual(['c']);
    expect(data.filter((d) => 'end' in d)).toHaveLength(2);
    expect(data.at(-1)).toEqual({ finished: 2 });
    expect(finished).toEqual(['ab', 'c']);
  });
});

describe('mergeGenerations', () => {
  it('throws the first failure and ends the generations still running', async () => {
    let ended = false;
    let release: () => void = () => undefined;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const running: GenerationStream = {
      ...streamOf([]),
      events: (async function* () {
        try {
          yield { type: 'delta', text: 'x', tokenIds: [1] };
          await blocked; // a generation still decoding
          yield end;
        } finally {
          ended = true;
        }
      })(),
    };
    const failing = streamOf([], new ModelgateError(ErrorCode.UNAVAILABLE, 'worker lost'));
    const seen: number[] = [];
    const merged = (async () => {
      for await (const { index } of mergeGenerations([running, failing])) seen.push(index);
    })();
    await expect(merged).rejects.toThrow('worker lost');
    release();
    await expect.poll(() => ended).toBe(true);
    expect(seen).toEqual([0]);
  });
});

describe('renameErrorFields', () => {
  const names = { text: 'prompt', 'parameters.max_new_tokens': 'max_tokens' };

  it("names the surface's field in `field`, in the message's prefix and in the message", () => {
    const empty = renameErrorFields(
      new ModelgateError(ErrorCode.INVALID_ARGUMENT, 'text: the prompt must hold at least one token', {
        field: 'text',
      }),
      names,
    );
    expect(empty).toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      message: 'prompt: the prompt must hold at least one token',
      details: { field: 'prompt' },
    });
    const long = renameErrorFields(
      new ModelgateError(ErrorCode.TOKEN_LIMIT_EXCEEDED, 'prompt tokens + max_new_tokens must be <= 256', {
        field: 'parameters.max_new_tokens',
      }),
      names,
    );
    expect(long).toMatchObject({
      message: 'prompt tokens + max_tokens must be <= 256',
      details: { field: 'max_tokens' },
    });
  });

  it('returns other errors as they are', () => {
    const other = new ModelgateError(ErrorCode.NOT_FOUND, 'unknown model', { field: 'model' });
    expect(renameErrorFields(other, names)).toBe(other);
    const plain = new Error('boom');
    expect(renameErrorFields(plain, names)).toBe(plain);
  });
});
