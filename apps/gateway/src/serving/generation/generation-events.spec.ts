import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type GenerateCall, type GenerateChunk } from '@modelgate/inference-client';
import { describe, expect, it } from 'vitest';
import { type GenerationRecorder } from '../../metrics/generation-metrics.js';
import { type GenerationEvent, generationEvents } from './generation-events.js';

/** A worker call that yields `chunks` (then throws `failure`, when given), recording cancels. */
class ScriptedCall implements GenerateCall {
  readonly worker = 'w1';
  readonly attempts = 1;
  cancels = 0;
  read = 0;

  constructor(
    private readonly chunks: GenerateChunk[],
    private readonly failure?: Error,
  ) {}

  cancel(): void {
    this.cancels++;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<GenerateChunk> {
    for (const chunk of this.chunks) {
      if (this.cancels > 0) return;
      this.read++;
      yield await Promise.resolve(chunk);
    }
    if (this.failure) throw this.failure;
  }
}

/** A byte-level toy vocabulary: ids are bytes, decoded lossily as UTF-8 like GPT-2's. */
const decodeBytes = (ids: readonly number[]) => Buffer.from(ids.filter((id) => id < 256)).toString('utf8');
const bytesOf = (text: string) => [...Buffer.from(text, 'utf8')];

function chunksOf(ids: number[], finishReason: 'length' | 'eos' = 'length'): GenerateChunk[] {
  return ids.map((id, i) => ({
    tokenIds: [id],
    promptTokens: 2,
    generatedTokens: i + 1,
    ...(i === 0 ? { queueMs: 3 } : {}),
    ...(i === ids.length - 1 ? { finishReason } : {}),
  }));
}

class RecordingRecorder implements GenerationRecorder {
  firsts: number[] = [];
  tokenCounts: number[] = [];
  gaps: (number | undefined)[] = [];
  endings: string[] = [];
  firstToken(seconds: number) {
    this.firsts.push(seconds);
  }
  tokens(count: number, gap: number | undefined) {
    this.tokenCounts.push(count);
    this.gaps.push(gap);
  }
  ended(reason: string) {
    this.endings.push(reason);
  }
}

function run(
  call: GenerateCall,
  stop: string[] = [],
  recorder = new RecordingRecorder(),
  caption: { prefixIds?: number[]; trim?: boolean; cleanUpSpaces?: boolean } = {},
) {
  let clock = 100;
  return generationEvents(call, {
    decode: decodeBytes,
    stop,
    ...caption,
    promptTokens: 2,
    now: () => (clock += 10),
    startedAt: 0,
    firstTokenAt: 50,
    recorder,
  });
}

async function collect(events: AsyncIterable<GenerationEvent>): Promise<GenerationEvent[]> {
  const out: GenerationEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

const deltas = (events: GenerationEvent[]) => events.flatMap((e) => (e.type === 'delta' ? [e.text] : []));

describe('generationEvents', () => {
  it('never yields a split character: a multi-byte one waits for its last byte', async () => {
    const events = await collect(run(new ScriptedCall(chunksOf(bytesOf('a😀b')))));
    expect(deltas(events)).toEqual(['a', '😀', 'b']);
    expect(deltas(events).join('')).not.toContain('\uFFFD');
    expect(events.at(-1)).toMatchObject({
      type: 'end',
      finishReason: 'length',
      text: 'a😀b',
      promptTokens: 2,
      generatedTokens: 6,
      timings: { queueMs: 3, timeToFirstTokenMs: 50 },
    });
  });

  it('gives each delta the ids read since the previous one', async () => {
    const events = await collect(run(new ScriptedCall(chunksOf(bytesOf('é!')))));
    expect(events.filter((e) => e.type === 'delta').map((e) => e.tokenIds)).toEqual([[0xc3, 0xa9], [0x21]]);
  });

  it("carries each token's logprob with the delta that shows its text, the rest on the end", async () => {
    // 0xc3 0xa9 is 'é' in two tokens; 300 stands in for the end-of-sequence token (no text).
    const ids = [0x61, 0xc3, 0xa9, 300];
    const chunks = chunksOf(ids, 'eos').map((chunk, i) => ({
      ...chunk,
      logprobs: [{ logprob: -i, top: [{ id: 0x61, logprob: -0.5 }] }],
    }));
    const events = await collect(
      generationEvents(new ScriptedCall(chunks), {
        decode: decodeBytes,
        tokenText: (id) => (id === 300 ? '<eos>' : `#${id}`),
        stop: [],
        promptTokens: 2,
        now: () => 0,
        startedAt: 0,
        firstTokenAt: 0,
        recorder: new RecordingRecorder(),
      }),
    );
    const top = [{ token: '#97', logprob: -0.5 }];
    const entries = ids.map((id, i) => ({ token: id === 300 ? '<eos>' : `#${id}`, logprob: -i, top }));
    expect(events.filter((e) => e.type === 'delta').map((e) => e.logprobs)).toEqual([
      entries.slice(0, 1),
      entries.slice(1, 3),
    ]);
    expect(events.at(-1)).toMatchObject({
      type: 'end',
      logprobs: { all: entries, unsent: entries.slice(3) },
    });
  });

  it('has no logprobs where the worker sent none', async () => {
    const events = await collect(run(new ScriptedCall(chunksOf(bytesOf('ab')))));
    for (const event of events) expect(event).not.toHaveProperty('logprobs');
  });

  it('ends the text before a stop string, even across deltas, and cancels the worker call', async () => {
    const call = new ScriptedCall(chunksOf(bytesOf('hello END more text')));
    const events = await collect(run(call, ['END']));
    expect(deltas(events).join('')).toBe('hello ');
    expect(events.at(-1)).toMatchObject({
      type: 'end',
      finishReason: 'stop',
      text: 'hello ',
      generatedTokens: 9,
    });
    expect(call.cancels).toBeGreaterThan(0);
    expect(call.read).toBe(9);
  });

  it('releases a held-back possible stop start at the end of the sequence', async () => {
    const events = await collect(run(new ScriptedCall(chunksOf(bytesOf('abE'), 'eos')), ['END']));
    expect(deltas(events)).toEqual(['a', 'b', 'E']);
    expect(events.at(-1)).toMatchObject({ finishReason: 'eos', text: 'abE' });
  });

  it('skips text of ids the decoder drops (EOS) but still counts them', async () => {
    const events = await collect(run(new ScriptedCall(chunksOf([0x61, 50256], 'eos'))));
    expect(deltas(events)).toEqual(['a']);
    expect(events.at(-1)).toMatchObject({ finishReason: 'eos', generatedTokens: 2 });
  });

  it('cancels the worker call when the consumer breaks out, and records it as cancelled', async () => {
    const call = new ScriptedCall(chunksOf(bytesOf('abcdef')));
    const recorder = new RecordingRecorder();
    for await (const event of run(call, [], recorder)) {
      expect(event).toMatchObject({ text: 'a' });
      break;
    }
    expect(call.cancels).toBeGreaterThan(0);
    expect(recorder.endings).toEqual(['cancelled']);
  });

  it('cancels the worker call when the events are given up before the first read', async () => {
    const call = new ScriptedCall(chunksOf(bytesOf('ab')));
    await run(call)[Symbol.asyncIterator]().return?.();
    expect(call.cancels).toBe(1);
  });

  it('passes a worker failure mid-stream on, after the deltas before it', async () => {
    const failure = new ModelgateError(ErrorCode.DEADLINE_EXCEEDED, 'deadline');
    const recorder = new RecordingRecorder();
    const events: GenerationEvent[] = [];
    const reading = (async () => {
      for await (const event of run(
        new ScriptedCall(chunksOf(bytesOf('ab')).slice(0, 1), failure),
        [],
        recorder,
      )) {
        events.push(event);
      }
    })();
    await expect(reading).rejects.toBe(failure);
    expect(deltas(events)).toEqual(['a']);
    expect(recorder.endings).toEqual(['error']);
  });

  it('ends without an end event when the call ends without a finish reason (caller cancelled)', async () => {
    const chunks = chunksOf(bytesOf('ab')).map(({ finishReason: _drop, ...chunk }) => chunk);
    const events = await collect(run(new ScriptedCall(chunks)));
    expect(events.map((e) => e.type)).toEqual(['delta', 'delta']);
  });

  it('records token counts and the gaps between messages, the first without one', async () => {
    const recorder = new RecordingRecorder();
    await collect(run(new ScriptedCall(chunksOf(bytesOf('abc'))), [], recorder));
    expect(recorder.tokenCounts).toEqual([1, 1, 1]);
    expect(recorder.gaps[0]).toBeUndefined();
    expect(recorder.gaps.slice(1).every((gap) => gap !== undefined && gap > 0)).toBe(true);
    expect(recorder.endings).toEqual(['length']);
  });

  it('trims a caption as transformers.js does, its deltas adding up to the trimmed text', async () => {
    const events = await collect(
      run(new ScriptedCall(chunksOf(bytesOf(' a cat \n on a mat \n'))), [], undefined, { trim: true }),
    );
    expect(deltas(events).join('')).toBe('a cat \n on a mat');
    // Whitespace waits for the text after it: no delta is whitespace alone.
    expect(deltas(events).filter((delta) => delta.trim() === '')).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'end', text: 'a cat \n on a mat', finishReason: 'length' });
  });

  it('cuts a trimmed caption at a stop string before trimming its end', async () => {
    const events = await collect(
      run(new ScriptedCall(chunksOf(bytesOf(' a cat. on a mat'))), ['on'], undefined, { trim: true }),
    );
    expect(deltas(events).join('')).toBe('a cat.');
    expect(events.at(-1)).toMatchObject({ type: 'end', text: 'a cat.', finishReason: 'stop' });
  });

  it("starts the text with the prefix ids' text, none for a skipped special id", async () => {
    const special = await collect(
      run(new ScriptedCall(chunksOf(bytesOf('hi'))), [], undefined, { prefixIds: [999] }),
    );
    expect(special.at(-1)).toMatchObject({ type: 'end', text: 'hi' });
    const plain = await collect(
      run(new ScriptedCall(chunksOf(bytesOf('hi'))), [], undefined, { prefixIds: bytesOf('>') }),
    );
    expect(deltas(plain).join('')).toBe('>hi');
    expect(plain.at(-1)).toMatchObject({ type: 'end', text: '>hi' });
  });

  it("cleans tokenization spaces as the tokenizer's decode does, deltas adding up to the cleaned text", async () => {
    const raw = "I do n't know , he 's here .";
    const events = await collect(
      run(new ScriptedCall(chunksOf(bytesOf(raw))), [], undefined, { cleanUpSpaces: true }),
    );
    expect(deltas(events).join('')).toBe("I don't know, he's here.");
    expect(events.at(-1)).toMatchObject({ type: 'end', text: "I don't know, he's here." });
    // Off (tokenizer_config.json says false): the text as decoded.
    const kept = await collect(run(new ScriptedCall(chunksOf(bytesOf(raw)))));
    expect(kept.at(-1)).toMatchObject({ type: 'end', text: raw });
  });

  it('matches stop strings in the cleaned text, then trims a caption', async () => {
    const events = await collect(
      run(new ScriptedCall(chunksOf(bytesOf(' a cat , on a mat'))), [', on'], undefined, {
        cleanUpSpaces: true,
        trim: true,
      }),
    );
    expect(events.at(-1)).toMatchObject({ type: 'end', text: 'a cat', finishReason: 'stop' });
  });
});
