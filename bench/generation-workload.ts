/**
 * The generation suite's workload, built the same way by the suite and by the children it starts
 * (their configs travel in one environment variable): requests with prompts of varied length cut
 * from the bench sentences and varied max_new_tokens, deterministic from a seed. Lengths follow
 * Weyl sequences (i·α mod 1 for irrational α), which cover each range evenly without a random
 * generator, and the two use different α so that long prompts do not go with long answers.
 */
import { type TextTokenizer } from '@modelgate/processing';
import { SENTENCES } from './sentences.js';

/** How the children rebuild the workload. */
export interface GenerationWorkloadSpec {
  /** Shifts both sequences: another seed, another (equally spread) set of requests. */
  seed: number;
  /** Requests to build (a step of n requests serves the first n). */
  count: number;
  /** Prompt length range in tokens (a prompt ends at the first word boundary at or past its target). */
  promptTokens: { min: number; max: number };
  /** max_new_tokens range. */
  maxNewTokens: { min: number; max: number };
}

/** One request of the workload. */
export interface GenerationRequest {
  text: string;
  /** The prompt's token ids, as the gateway tokenizes `text` (GPT-2 adds no special tokens). */
  promptIds: number[];
  maxNewTokens: number;
}

const GOLDEN = (Math.sqrt(5) - 1) / 2;
const SILVER = Math.SQRT2 - 1;

/** min..max (inclusive) at position `i` of the Weyl sequence of `alpha` shifted by `seed`. */
function spreadInt(i: number, seed: number, alpha: number, range: { min: number; max: number }): number {
  const fraction = ((seed + i) * alpha) % 1;
  return range.min + Math.min(range.max - range.min, Math.floor(fraction * (range.max - range.min + 1)));
}

/** Every word of the sentences, in order, and where each sentence's words begin. */
const WORDS = SENTENCES.flatMap((sentence) => sentence.split(' '));
const SENTENCE_STARTS = SENTENCES.map((_, i) =>
  SENTENCES.slice(0, i).reduce((sum, sentence) => sum + sentence.split(' ').length, 0),
);

/** The shortest run of words from sentence `start` on (cycling) that tokenizes to at least `target` tokens. */
function promptOf(tokenizer: TextTokenizer, start: number, target: number): string {
  const first = SENTENCE_STARTS[start % SENTENCES.length] ?? 0;
  const words: string[] = [];
  while (words.length === 0 || tokenizer.tokenize(words.join(' ')).length < target) {
    words.push(WORDS[(first + words.length) % WORDS.length] ?? '');
  }
  return words.join(' ');
}

/** The workload's requests, in the order the clients take them. */
export function generationWorkload(
  tokenizer: TextTokenizer,
  spec: GenerationWorkloadSpec,
): GenerationRequest[] {
  return Array.from({ length: spec.count }, (_, i) => {
    const text = promptOf(
      tokenizer,
      i % SENTENCES.length,
      spreadInt(i, spec.seed, GOLDEN, spec.promptTokens),
    );
    return {
      text,
      promptIds: tokenizer.tokenize(text),
      maxNewTokens: spreadInt(i, spec.seed, SILVER, spec.maxNewTokens),
    };
  });
}

/** Min, max and mean of `values`. */
export function rangeOf(values: readonly number[]): { min: number; max: number; mean: number } {
  return {
    min: Math.min(...values),
    max: Math.max(...values),
    mean: values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length),
  };
}
