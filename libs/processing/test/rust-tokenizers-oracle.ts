// Test support: Hugging Face's Rust tokenizers (the npm `tokenizers` package, its Node binding,
// pinned to 0.23.2 in package.json) as the oracle for character offsets, and Python's
// question-answering and token-classification pipelines (transformers v4.53 postprocess) computed
// on its encodings and the model's logits. Python's pipelines read everything they place from the
// Rust encoding: QA's start/end are word_to_chars of the words of a span's first and last tokens
// and its answer is context[start:end]; NER's start/end are the offsets of an entity's first and
// last tokens, a token continues a word when its length differs from its span's, an [UNK] token's
// word is its span of the text, and every other word is the decoder's join of the tokens.
// Nothing here is shared with the code under test.
import { join } from 'node:path';
import { type Encoding, Tokenizer } from 'tokenizers';
import { type AnswerSpan, type GroupedEntity, type TokenEntity, softmax } from '../src/index.js';
import { type FixtureModel } from './onnx-session.js';

/** The Rust tokenizer of a fixture directory (its tokenizer.json). */
export function openRustTokenizer(dir: string): Tokenizer {
  return Tokenizer.fromFile(join(dir, 'tokenizer.json'));
}

/** Code points [start, end) of `text`, as Python slices a str. */
export function codePoints(text: string, start: number, end: number): string {
  return Array.from(text).slice(start, end).join('');
}

/** Whether the tokenizer's normalizer removes `char` altogether (it then has no alignment). */
export function isRemovedByNormalizer(rust: Tokenizer, char: string): boolean {
  const normalizer = rust.getNormalizer();
  return normalizer !== null && normalizer.normalizeString(char) === '';
}

function int64(values: readonly number[]): {
  datatype: 'INT64';
  dims: [number, number];
  data: BigInt64Array;
} {
  return { datatype: 'INT64', dims: [1, values.length], data: BigInt64Array.from(values, (v) => BigInt(v)) };
}

/** The model's outputs for one encoding, unpadded. */
function runEncoding(model: FixtureModel, encoding: Encoding): ReturnType<FixtureModel['runAll']> {
  return model.runAll({
    input_ids: int64(encoding.getIds()),
    attention_mask: int64(encoding.getAttentionMask()),
    token_type_ids: int64(encoding.getTypeIds()),
  });
}

/** Softmax of a row with every position outside `keep` set to -10000 (Python's mask value). */
function maskedProbabilities(logits: Float32Array, keep: (position: number) => boolean): number[] {
  const masked = Array.from(logits, (value, i) => (keep(i) ? value : -10000));
  const max = Math.max(...masked);
  const exps = masked.map((value) => Math.exp(value - max));
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / sum);
}

/**
 * Python's question-answering answers for a (question, context) pair that fits one window:
 * Rust's pair encoding run through the model, spans of at most `maxAnswerLen` context tokens
 * scored start × end, widened to their words, answers of the same text (case-insensitively) summed.
 */
export async function pythonAnswersOnRust(
  rust: Tokenizer,
  model: FixtureModel,
  question: string,
  context: string,
  options: { topK: number; maxAnswerLen: number },
): Promise<AnswerSpan[]> {
  const encoding = await rust.encode(question, context);
  const sequences = encoding.getSequenceIds();
  const special = encoding.getSpecialTokensMask();
  const isContext = (i: number) => sequences[i] === 1 && special[i] === 0;
  const outputs = await runEncoding(model, encoding);
  const keep = (i: number) => i === 0 || isContext(i);
  const starts = maskedProbabilities(outputs.start_logits?.data ?? new Float32Array(), keep);
  const ends = maskedProbabilities(outputs.end_logits?.data ?? new Float32Array(), keep);
  const spans: { s: number; e: number; score: number }[] = [];
  for (let s = 0; s < sequences.length; s++) {
    if (!isContext(s)) continue;
    for (let e = s; e < Math.min(sequences.length, s + options.maxAnswerLen); e++) {
      if (isContext(e)) spans.push({ s, e, score: (starts[s] ?? 0) * (ends[e] ?? 0) });
    }
  }
  spans.sort((a, b) => b.score - a.score);
  const answers: AnswerSpan[] = [];
  for (const { s, e, score } of spans.slice(0, options.topK)) {
    const startWord = encoding.tokenToWord(s);
    const endWord = encoding.tokenToWord(e);
    if (startWord === null || endWord === null) throw new Error(`token ${s} or ${e} has no word`);
    const start = encoding.wordToChars(startWord, 1)?.[0];
    const end = encoding.wordToChars(endWord, 1)?.[1];
    if (start === undefined || end === undefined)
      throw new Error(`word ${startWord} or ${endWord} has no chars`);
    const answer = codePoints(context, start, end);
    const known = answers.find((a) => a.answer.toLowerCase() === answer.toLowerCase());
    if (known) known.score += score;
    else answers.push({ answer, score, start, end });
  }
  return answers.sort((a, b) => b.score - a.score).slice(0, options.topK);
}

/** An aggregation strategy of Python's token-classification pipeline. */
export type PythonAggregation = 'none' | 'simple' | 'first' | 'average' | 'max';

interface PreEntity {
  word: string;
  scores: number[];
  start: number;
  end: number;
  index: number;
  isSubword: boolean;
}

interface WordEntity {
  entity: string;
  score: number;
  word: string;
  start: number;
  end: number;
}

function best(scores: readonly number[]): number {
  return scores.indexOf(Math.max(...scores));
}

/** Python's B-/I- split: a label without a prefix continues (I) its own tag. */
function tagOf(label: string): { bi: 'B' | 'I'; tag: string } {
  if (label.startsWith('B-')) return { bi: 'B', tag: label.slice(2) };
  if (label.startsWith('I-')) return { bi: 'I', tag: label.slice(2) };
  return { bi: 'I', tag: label };
}

/**
 * Python's token-classification entities for `text` (ignore_labels empty): Rust's encoding run
 * through the model, pre-entities placed by Rust's offsets, then the strategy's aggregation.
 */
export async function pythonEntitiesOnRust(
  rust: Tokenizer,
  model: FixtureModel,
  labels: readonly string[],
  text: string,
  strategy: PythonAggregation,
): Promise<(TokenEntity | GroupedEntity)[]> {
  const encoding = await rust.encode(text);
  const outputs = await runEncoding(model, encoding);
  const logits = Object.values(outputs)[0]?.data ?? new Float32Array();
  const width = labels.length;
  const tokens = encoding.getTokens();
  const offsets = encoding.getOffsets();
  const special = encoding.getSpecialTokensMask();
  const unknownId = rust.tokenToId('[UNK]');
  const ids = encoding.getIds();
  const decode = (words: string[]) => rust.getDecoder()?.decode(words) ?? words.join(' ');
  const pre: PreEntity[] = [];
  tokens.forEach((token, index) => {
    if (special[index] === 1) return;
    const [start = 0, end = 0] = offsets[index] ?? [];
    const wordRef = codePoints(text, start, end);
    // continuing_subword_prefix is set ("##"): the pipeline's word-aware test.
    let isSubword = Array.from(token).length !== Array.from(wordRef).length;
    let word = token;
    if (ids[index] === unknownId) {
      word = wordRef;
      isSubword = false;
    }
    const scores = Array.from(softmax(logits.subarray(index * width, (index + 1) * width)));
    pre.push({ word, scores, start, end, index, isSubword });
  });
  if (strategy === 'none') {
    return pre.map((p) => ({
      entity: labels[best(p.scores)] ?? '',
      score: Math.max(...p.scores),
      index: p.index,
      word: p.word,
      start: p.start,
      end: p.end,
    }));
  }
  let words: WordEntity[];
  if (strategy === 'simple') {
    words = pre.map((p) => ({
      entity: labels[best(p.scores)] ?? '',
      score: Math.max(...p.scores),
      word: p.word,
      start: p.start,
      end: p.end,
    }));
  } else {
    const groups: PreEntity[][] = [];
    for (const p of pre) {
      const last = groups.at(-1);
      if (last !== undefined && p.isSubword) last.push(p);
      else groups.push([p]);
    }
    words = groups.map((group) => {
      const first = group[0]!;
      let scores = first.scores;
      if (strategy === 'max')
        scores = group.reduce((a, b) => (Math.max(...b.scores) > Math.max(...a.scores) ? b : a)).scores;
      if (strategy === 'average')
        scores = scores.map((_, j) => group.reduce((sum, p) => sum + p.scores[j]!, 0) / group.length);
      return {
        entity: labels[best(scores)] ?? '',
        score: Math.max(...scores),
        word: decode(group.map((p) => p.word)),
        start: first.start,
        end: group.at(-1)!.end,
      };
    });
  }
  const grouped: WordEntity[][] = [];
  for (const entity of words) {
    const members = grouped.at(-1);
    const previous = members?.at(-1);
    const { bi, tag } = tagOf(entity.entity);
    if (members !== undefined && previous !== undefined && tag === tagOf(previous.entity).tag && bi !== 'B') {
      members.push(entity);
    } else grouped.push([entity]);
  }
  // group_sub_entities: the label after its first "-" (split("-", 1)[-1]).
  const groupOf = (label: string) => label.slice(label.indexOf('-') + 1);
  return grouped.map((members) => ({
    entity_group: groupOf(members[0]!.entity),
    score: members.reduce((sum, m) => sum + m.score, 0) / members.length,
    word: decode(members.map((m) => m.word)),
    start: members[0]!.start,
    end: members.at(-1)!.end,
  }));
}
