import { type GenerateCall } from '@modelgate/inference-client';
import { IncrementalDecoder, StopMatcher, TokenizationSpacesCleaner } from '@modelgate/generation';
import { TrimmedTextStream } from '@modelgate/processing';
import { type GenerationRecorder } from '../../metrics/generation-metrics.js';

/** One generated token's log-probability and its step's most likely tokens, as text. */
export interface TextLogprob {
  token: string;
  logprob: number;
  top: { token: string; logprob: number }[];
}

/** A text delta: the text the new tokens completed, and the ids whose text it is. */
export interface GenerationDelta {
  type: 'delta';
  text: string;
  tokenIds: number[];
  /** With logprobs asked for: those of `tokenIds`, in order. */
  logprobs?: TextLogprob[];
}

/** The last event of a generation. */
export interface GenerationEnd {
  type: 'end';
  finishReason: 'length' | 'eos' | 'stop';
  /** The whole generated text (a stop string excluded; trimmed when the context says so). */
  text: string;
  promptTokens: number;
  generatedTokens: number;
  timings: { queueMs: number; timeToFirstTokenMs: number; totalMs: number };
  /**
   * With logprobs asked for: every generated token's (`all`, as many as generatedTokens), and
   * those no delta carried (`unsent`: the ids whose text never showed, such as the eos or a stop
   * string's last tokens).
   */
  logprobs?: { all: TextLogprob[]; unsent: TextLogprob[] };
}

/** What a generation stream yields: text deltas, then one `end`. */
export type GenerationEvent = GenerationDelta | GenerationEnd;

/** What `generationEvents` needs besides the worker call. */
export interface GenerationEventsContext {
  /** The tokenizer's decode of generated ids (special tokens skipped). */
  decode: (ids: readonly number[]) => string;
  /** One token's text alone (a logprob's `token`); needed when the worker sends logprobs. */
  tokenText?: (id: number) => string;
  /**
   * Clean the decoded text as the tokenizer's `clean_up_tokenization_spaces` says (before the stop
   * strings see it): no space before punctuation and contractions.
   */
  cleanUpSpaces?: boolean;
  /** Stop strings: the text ends before the first one, and the worker call is cancelled. */
  stop: readonly string[];
  /**
   * Ids decoded ahead of the generated ones (image-to-text: the decoder's start token, as
   * transformers.js decodes its whole output); their text, if any, starts the generated text.
   */
  prefixIds?: readonly number[];
  /**
   * Trim the text (String.prototype.trim, after the stop strings): leading whitespace is never
   * sent, and whitespace is held back until text follows it, so the deltas still add up to the
   * end's text. image-to-text's answer, as transformers.js' pipeline gives it.
   */
  trim?: boolean;
  promptTokens: number;
  /** Monotonic clock in ms (performance.now in production). */
  now: () => number;
  /** When the request arrived and when the first tokens did, on `now`'s clock. */
  startedAt: number;
  firstTokenAt: number;
  recorder: GenerationRecorder;
  /** Hears the end event before it is yielded (e.g. to start shadow mirrors). */
  onEnd?: (end: GenerationEnd) => void;
}

/**
 * The events of a running generation: the worker's token ids turned into text deltas (incremental
 * detokenization that never splits a character), cut at the first stop string (which cancels the
 * worker call), trimmed when asked, then one `end`. A delta is yielded only when it has text; its `tokenIds` are the
 * ids read since the previous delta. Ending early (the consumer breaks out or `return`s, even
 * before its first `next`) cancels the worker call. A stream cancelled by the caller's signal just
 * ends, without an `end`; a worker failure mid-stream throws its ModelgateError.
 */
export function generationEvents(
  call: GenerateCall,
  context: GenerationEventsContext,
): AsyncIterable<GenerationEvent> {
  const events = runGeneration(call, context);
  let started = false;
  const iterator: AsyncIterableIterator<GenerationEvent> = {
    next: () => {
      started = true;
      return events.next();
    },
    return: (value?: unknown) => {
      call.cancel();
      // A generator never started runs no `finally`: count the generation as cancelled here.
      if (!started) context.recorder.ended('cancelled');
      started = true;
      return events.return(value as undefined);
    },
    throw: (error?: unknown) => {
      call.cancel();
      return events.throw(error);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return { [Symbol.asyncIterator]: () => iterator };
}

async function* runGeneration(
  call: GenerateCall,
  context: GenerationEventsContext,
): AsyncGenerator<GenerationEvent, void, undefined> {
  const decoder = new IncrementalDecoder(context.decode);
  const matcher = new StopMatcher(context.stop);
  const trimmer = context.trim === true ? new TrimmedTextStream() : undefined;
  const shape = (piece: string): string => (trimmer ? trimmer.push(piece) : piece);
  const cleaner = context.cleanUpSpaces === true ? new TokenizationSpacesCleaner() : undefined;
  const clean = (decoded: string): string => (cleaner ? cleaner.push(decoded) : decoded);
  // The prefix's text (empty for a special token) leads the first generated text.
  let lead = context.prefixIds?.length ? clean(decoder.push(context.prefixIds)) : '';
  let text = '';
  let pendingIds: number[] = [];
  let pendingLogprobs: TextLogprob[] = [];
  const allLogprobs: TextLogprob[] = [];
  const tokenText = context.tokenText ?? ((): string => '');
  let generatedTokens = 0;
  let queueMs: number | undefined;
  let lastAt: number | undefined;
  let finishReason: GenerationEnd['finishReason'] | undefined;
  let outcome: 'length' | 'eos' | 'stop' | 'cancelled' | 'error' = 'cancelled';
  const delta = (piece: string): GenerationDelta => {
    const event: GenerationDelta = {
      type: 'delta',
      text: piece,
      tokenIds: pendingIds,
      ...(pendingLogprobs.length > 0 ? { logprobs: pendingLogprobs } : {}),
    };
    text += piece;
    pendingIds = [];
    pendingLogprobs = [];
    return event;
  };
  try {
    for await (const chunk of call) {
      const at = lastAt === undefined ? context.firstTokenAt : context.now();
      context.recorder.tokens(chunk.tokenIds.length, lastAt === undefined ? undefined : (at - lastAt) / 1000);
      lastAt = at;
      queueMs ??= chunk.queueMs;
      generatedTokens += chunk.tokenIds.length;
      pendingIds.push(...chunk.tokenIds);
      for (const [index, logprob] of (chunk.logprobs ?? []).entries()) {
        const entry: TextLogprob = {
          token: tokenText(chunk.tokenIds[index] ?? -1),
          logprob: logprob.logprob,
          top: logprob.top.map((entry) => ({ token: tokenText(entry.id), logprob: entry.logprob })),
        };
        pendingLogprobs.push(entry);
        allLogprobs.push(entry);
      }
      const piece = matcher.push(lead + clean(decoder.push(chunk.tokenIds)));
      lead = '';
      const shaped = shape(piece.text);
      if (shaped !== '') yield delta(shaped);
      if (piece.stopped) {
        finishReason = 'stop';
        call.cancel(); // the worker frees the slot at its next step
        break;
      }
      if (chunk.finishReason !== undefined) {
        finishReason = chunk.finishReason;
        break;
      }
    }
    if (finishReason === undefined) return; // cancelled by the caller: nobody is listening
    if (finishReason !== 'stop') {
      // The held-back tail: an incomplete character (decoded lossily, as a full decode would) or a
      // possible start of a stop string that never completed.
      const tail = matcher.push(lead + clean(decoder.flush()) + (cleaner?.flush() ?? ''));
      const rest = shape(tail.stopped ? tail.text : tail.text + matcher.flush()) + (trimmer?.flush() ?? '');
      if (tail.stopped) finishReason = 'stop';
      if (rest !== '') yield delta(rest);
    }
    const end: GenerationEnd = {
      type: 'end',
      finishReason,
      text,
      promptTokens: context.promptTokens,
      generatedTokens,
      timings: {
        queueMs: queueMs ?? 0,
        timeToFirstTokenMs: context.firstTokenAt - context.startedAt,
        totalMs: context.now() - context.startedAt,
      },
      ...(allLogprobs.length > 0 ? { logprobs: { all: allLogprobs, unsent: pendingLogprobs } } : {}),
    };
    outcome = finishReason;
    context.onEnd?.(end);
    yield end;
  } catch (error) {
    outcome = 'error';
    throw error;
  } finally {
    call.cancel();
    context.recorder.ended(outcome);
  }
}
