// Test support: Python's question-answering pipeline (transformers v4.53 postprocess) computed
// from the model's own logits, one window at a time, unpadded, with onnxruntime: the expectation
// the parity test holds the gateway's batched, windowed decoding to where transformers.js differs.
import { type PreTrainedTokenizer } from '@huggingface/transformers';
import { expect } from 'vitest';
import { type AnswerSpan } from '../src/index.js';
import { type FixtureModel } from './onnx-session.js';

const CLS = 101;
const SEP = 102;

/** A context of words joined by spaces, with each word's first code point. */
export interface WordContext {
  words: string[];
  context: string;
  wordStarts: number[];
}

/** `words` joined by single spaces, with where each word starts. */
export function wordContext(words: string[]): WordContext {
  let at = 0;
  const wordStarts = words.map((word) => {
    const start = at;
    at += Array.from(word).length + 1;
    return start;
  });
  return { words, context: words.join(' '), wordStarts };
}

/** The pipeline parameters the expectation applies (max_seq_len, doc_stride, top_k, …). */
export interface ExpectOptions {
  maxSeqLen: number;
  docStride: number;
  topK: number;
  maxAnswerLen: number;
  handleImpossible: boolean;
}

/** Python's pipeline over windows of `question` and `text`, each window run alone (unpadded) with onnxruntime. */
export async function pythonAnswers(
  model: FixtureModel,
  referenceTokenizer: PreTrainedTokenizer,
  question: string,
  text: WordContext,
  options: ExpectOptions,
): Promise<AnswerSpan[]> {
  const { words, context, wordStarts } = text;
  const q = referenceTokenizer.encode(question, { add_special_tokens: false });
  const c = referenceTokenizer.encode(context, { add_special_tokens: false });
  // The word of each context token (words are space-separated, so each is tokenized alone).
  const tokenWord = words.flatMap((word, w) =>
    referenceTokenizer.encode(word, { add_special_tokens: false }).map(() => w),
  );
  expect(c).toHaveLength(tokenWord.length);
  const capacity = options.maxSeqLen - q.length - 3;
  const answers: AnswerSpan[] = [];
  let nullScore = 1e6;
  for (let from = 0; ; from += capacity - options.docStride) {
    const to = Math.min(from + capacity, c.length);
    const ids = [CLS, ...q, SEP, ...c.slice(from, to), SEP];
    const types = ids.map((_, i) => (i > q.length + 1 ? 1 : 0));
    const dims: [number, number] = [1, ids.length];
    const tensor = (values: number[]) => ({
      datatype: 'INT64' as const,
      dims,
      data: BigInt64Array.from(values, (v) => BigInt(v)),
    });
    const outputs = await model.runAll({
      input_ids: tensor(ids),
      attention_mask: tensor(ids.map(() => 1)),
      token_type_ids: tensor(types),
    });
    const first = q.length + 2;
    const kept = (i: number) => i === 0 || (i >= first && i < first + (to - from));
    const probs = (logits: Float32Array) => {
      const masked = Array.from(logits, (v, i) => (kept(i) ? v : -10000));
      const max = Math.max(...masked);
      const exps = masked.map((v) => Math.exp(v - max));
      const sum = exps.reduce((a, b) => a + b, 0);
      return exps.map((e) => e / sum);
    };
    const ps = probs(outputs.start_logits?.data ?? new Float32Array());
    const pe = probs(outputs.end_logits?.data ?? new Float32Array());
    nullScore = Math.min(nullScore, (ps[0] ?? 0) * (pe[0] ?? 0));
    const spans: { s: number; e: number; score: number }[] = [];
    for (let s = first; s < first + (to - from); s++) {
      for (let e = s; e < Math.min(first + (to - from), s + options.maxAnswerLen); e++) {
        spans.push({ s, e, score: (ps[s] ?? 0) * (pe[e] ?? 0) });
      }
    }
    spans.sort((a, b) => b.score - a.score);
    for (const span of spans.slice(0, options.topK)) {
      // Python widens the span to the words of its first and last tokens (align_to_words).
      const [ws = 0, we = 0] = [tokenWord[from + span.s - first], tokenWord[from + span.e - first]];
      const answer = words.slice(ws, we + 1).join(' ');
      const known = answers.find((a) => a.answer.toLowerCase() === answer.toLowerCase());
      if (known) known.score += span.score;
      else {
        const start = wordStarts[ws] ?? 0;
        answers.push({ answer, score: span.score, start, end: start + Array.from(answer).length });
      }
    }
    if (to === c.length) break;
  }
  if (options.handleImpossible) answers.push({ answer: '', score: nullScore, start: 0, end: 0 });
  return answers.sort((a, b) => b.score - a.score).slice(0, options.topK);
}
