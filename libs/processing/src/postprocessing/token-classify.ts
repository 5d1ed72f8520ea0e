// Per-token logits → entities, with the semantics of transformers' (Python) `TokenClassificationPipeline`:
//  1. pre-entities: every non-special token with its softmax scores, character span and whether
//     it continues a word (WordPiece: the token's length differs from its text's; [UNK] never does
//     and takes the original text as its word);
//  2. none / simple: each token's best label; first / average / max: tokens merged into words
//     first (the first token's scores, the mean of the scores, or the scores of the token with the
//     highest score), then each word's best label;
//  3. simple / first / average / max: consecutive entities grouped B-/I- by tag (a `B-` opens a new
//     group), each group scored by the mean of its members' scores;
//  4. entities whose label (none) or group (the others) is in `ignoreLabels` dropped.
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { z } from 'zod';
import { softmax } from './classify.js';

/** How tokens are fused into entities (transformers' `aggregation_strategy`). */
export const AGGREGATION_STRATEGIES = ['none', 'simple', 'first', 'average', 'max'] as const;

/** One of AGGREGATION_STRATEGIES. */
export type AggregationStrategy = (typeof AGGREGATION_STRATEGIES)[number];

/** A token of one input as the model saw it. */
export interface ClassifiedToken {
  /** Its vocabulary token ("##ing", "[UNK]"). */
  token: string;
  /** Position in the model's input row (the pipeline's `index`). */
  index: number;
  /** Its [start, end) code-point span in the input text, when known. */
  span: readonly [number, number] | undefined;
  /** [CLS], [SEP] and other special tokens are never entities. */
  special: boolean;
  /** The unknown token: its word is the original text. */
  unknown: boolean;
}

const offsetSchema = (what: string) =>
  z.int().nullable().describe(`${what}, in Unicode code points; null when the token cannot be placed`);

/** One token's entity (`aggregation_strategy: none`), as transformers' pipeline answers it. */
export const tokenEntitySchema = z.object({
  entity: z.string().describe("The token's label (config.json id2label), e.g. B-PER"),
  score: z.number().describe("The label's softmax probability"),
  index: z.int().describe("The token's position in the model's input (0 is [CLS])"),
  word: z.string().describe('The token ("##ing" for a word continuation; the original text for [UNK])'),
  start: offsetSchema('Where the token starts in the text'),
  end: offsetSchema('Where the token ends in the text (exclusive)'),
});

/** One grouped entity (every aggregation_strategy but none). */
export const groupedEntitySchema = z.object({
  entity_group: z.string().describe('The tag without its B-/I- prefix, e.g. PER'),
  score: z.number().describe("The mean of its tokens' (or words') scores"),
  word: z.string().describe('Its tokens joined as text (the tokenizer decodes them)'),
  start: offsetSchema('Where the entity starts in the text'),
  end: offsetSchema('Where the entity ends in the text (exclusive)'),
});

/** A per-token answer (`aggregation_strategy: none`). */
export type TokenEntity = z.infer<typeof tokenEntitySchema>;

/** A grouped answer (every other strategy). */
export type GroupedEntity = z.infer<typeof groupedEntitySchema>;

/** What {@link classifyTokens} needs besides the logits. */
export interface ClassifyTokensOptions {
  /** Label names by index (config.json id2label); must match the logits' width. */
  labels: readonly string[];
  aggregationStrategy: AggregationStrategy;
  /** Labels (none) or groups (others) left out of the answer. @defaultValue ['O'] */
  ignoreLabels?: readonly string[] | undefined;
  /** Joins tokens into text as the tokenizer's decoder does (WordPiece: "##" glued, else a space). */
  joinTokens: (tokens: readonly string[]) => string;
  /** WordPiece's "##": tells continuation tokens by length; without it, by the text around them. */
  continuingSubwordPrefix?: string | undefined;
}

interface PreEntity {
  word: string;
  scores: Float64Array;
  start: number | null;
  end: number | null;
  index: number;
  isSubword: boolean;
}

interface Labeled {
  entity: string;
  score: number;
  /** Its vocabulary tokens: a group's word is decoded once from all of them (decoding text again is not idempotent for byte-level BPE). */
  tokens: string[];
  start: number | null;
  end: number | null;
}

function argmax(values: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < values.length; i++)
    if ((values[i] ?? -Infinity) > (values[best] ?? -Infinity)) best = i;
  return best;
}

function preEntities(
  chars: readonly string[],
  tokens: readonly ClassifiedToken[],
  rowLogits: (index: number) => ArrayLike<number>,
  hasPrefix: boolean,
): PreEntity[] {
  const result: PreEntity[] = [];
  for (const token of tokens) {
    if (token.special) continue;
    let word = token.token;
    let isSubword = false;
    const [start, end] = token.span ?? [null, null];
    if (start !== null && end !== null) {
      const wordRef = chars.slice(start, end).join('');
      isSubword = hasPrefix
        ? [...word].length !== end - start
        : start > 0 && !chars.slice(start - 1, start + 1).includes(' ');
      if (token.unknown) {
        word = wordRef;
        isSubword = false;
      }
    }
    result.push({ word, scores: softmax(rowLogits(token.index)), start, end, index: token.index, isSubword });
  }
  return result;
}

function aggregateWord(
  group: readonly PreEntity[],
  strategy: AggregationStrategy,
  options: ClassifyTokensOptions,
): Labeled {
  const first = group[0];
  const last = group[group.length - 1];
  if (first === undefined || last === undefined) throw new Error('aggregateWord: empty word');
  let scores: ArrayLike<number> = first.scores;
  if (strategy === 'max') {
    let best = first;
    for (const entity of group) if (Math.max(...entity.scores) > Math.max(...best.scores)) best = entity;
    scores = best.scores;
  } else if (strategy === 'average') {
    const mean = new Float64Array(first.scores.length);
    for (const entity of group)
      entity.scores.forEach((score, i) => (mean[i] = (mean[i] ?? 0) + score / group.length));
    scores = mean;
  }
  const best = argmax(scores);
  return {
    entity: options.labels[best] ?? `LABEL_${best}`,
    score: scores[best] ?? 0,
    tokens: group.map((entity) => entity.word),
    start: first.start,
    end: last.end,
  };
}

/** Merges continuation tokens into the word before them (first / average / max). */
function aggregateWords(
  entities: readonly PreEntity[],
  strategy: AggregationStrategy,
  options: ClassifyTokensOptions,
): Labeled[] {
  const words: Labeled[] = [];
  let group: PreEntity[] = [];
  for (const entity of entities) {
    if (group.length > 0 && !entity.isSubword) {
      words.push(aggregateWord(group, strategy, options));
      group = [];
    }
    group.push(entity);
  }
  if (group.length > 0) words.push(aggregateWord(group, strategy, options));
  return words;
}

/** B-/I- prefix and tag of a label; a label without one continues (I) its own tag. */
function splitTag(label: string): { begins: boolean; tag: string } {
  if (label.startsWith('B-')) return { begins: true, tag: label.slice(2) };
  if (label.startsWith('I-')) return { begins: false, tag: label.slice(2) };
  return { begins: false, tag: label };
}

function groupOf(members: readonly Labeled[], options: ClassifyTokensOptions): GroupedEntity {
  const first = members[0];
  const last = members[members.length - 1];
  if (first === undefined || last === undefined) throw new Error('groupOf: empty group');
  const dash = first.entity.indexOf('-');
  return {
    entity_group: dash < 0 ? first.entity : first.entity.slice(dash + 1),
    score: members.reduce((sum, member) => sum + member.score, 0) / members.length,
    word: options.joinTokens(members.flatMap((member) => member.tokens)),
    start: first.start,
    end: last.end,
  };
}

/** Consecutive entities of one tag, each `B-` opening a new group. */
function groupEntities(entities: readonly Labeled[], options: ClassifyTokensOptions): GroupedEntity[] {
  const groups: GroupedEntity[] = [];
  let members: Labeled[] = [];
  for (const entity of entities) {
    const previous = members[members.length - 1];
    const { begins, tag } = splitTag(entity.entity);
    if (previous !== undefined && (begins || tag !== splitTag(previous.entity).tag)) {
      groups.push(groupOf(members, options));
      members = [];
    }
    members.push(entity);
  }
  if (members.length > 0) groups.push(groupOf(members, options));
  return groups;
}

/**
 * The entities of one input: `text` is the input, `tokens` its row's tokens in order, `logits` the
 * row's [sequence, labels] scores (row-major; rows past the tokens are padding). Throws INTERNAL
 * when the labels do not match the logits' width.
 */
export function classifyTokens(
  text: string,
  tokens: readonly ClassifiedToken[],
  logits: ArrayLike<number>,
  options: ClassifyTokensOptions,
): (TokenEntity | GroupedEntity)[] {
  const width = options.labels.length;
  if (width === 0 || logits.length % width !== 0) {
    throw new ModelgateError(
      ErrorCode.INTERNAL,
      `the model outputs ${logits.length} scores for the input but has ${width} labels`,
    );
  }
  const rowLogits = (index: number) =>
    Array.from({ length: width }, (_, i) => logits[index * width + i] ?? 0);
  const ignore = new Set(options.ignoreLabels ?? ['O']);
  const pre = preEntities([...text], tokens, rowLogits, options.continuingSubwordPrefix !== undefined);
  const strategy = options.aggregationStrategy;
  if (strategy === 'none') {
    return pre
      .map((entity): TokenEntity => {
        const best = argmax(entity.scores);
        const label = options.labels[best] ?? `LABEL_${best}`;
        return {
          entity: label,
          score: entity.scores[best] ?? 0,
          index: entity.index,
          word: entity.word,
          start: entity.start,
          end: entity.end,
        };
      })
      .filter((entity) => !ignore.has(entity.entity));
  }
  const labeled =
    strategy === 'simple'
      ? pre.map((entity): Labeled => {
          const best = argmax(entity.scores);
          return {
            entity: options.labels[best] ?? `LABEL_${best}`,
            score: entity.scores[best] ?? 0,
            tokens: [entity.word],
            start: entity.start,
            end: entity.end,
          };
        })
      : aggregateWords(pre, strategy, options);
  return groupEntities(labeled, options).filter((group) => !ignore.has(group.entity_group));
}
