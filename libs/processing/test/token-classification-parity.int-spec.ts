// token-classification end to end in-process (parseServeRequest → encodeInputs → onnxruntime →
// classifyTokenRows) against transformers.js' pipeline('token-classification') on tiny-bert-ner.
// transformers.js implements aggregation none and simple only, gives no start/end, drops [UNK]
// tokens and applies ignore_labels before grouping; where it does, the pipeline is the oracle.
// Everything else (first / average / max, offsets, [UNK] words, ignore_labels after grouping as
// Python's pipeline does) is checked against an expectation computed here from the logits of the
// model run with onnxruntime on transformers.js' own tokenization. transformers.js also truncates
// a long input to 512 tokens by cutting its closing [SEP]; we keep [CLS] … [SEP] as Python's
// tokenizers do, so the long text is checked against that expectation too.
import { dirname } from 'node:path';
import {
  AutoTokenizer,
  type PreTrainedTokenizer,
  type TokenClassificationPipeline,
  env,
  pipeline,
} from '@huggingface/transformers';
import { ensureFixture } from '@modelgate/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AggregationStrategy,
  type GroupedEntity,
  type TextTokenizer,
  type TokenEntity,
  classifyTokenRows,
  encodeInputs,
  loadTokenizerFromDir,
  parseServeRequest,
  softmax,
} from '../src/index.js';
import { type FixtureModel, openFixtureModel } from './onnx-session.js';

const TOLERANCE = 1e-4;
const FIXTURE = 'tiny-bert-ner';
const LONG = Array.from({ length: 700 }, (_, i) => ['Paris', 'is', 'lovely', 'in', 'spring'][i % 5]).join(
  ' ',
);
const TEXTS = [
  'My name is Sarah and I live in London',
  'Barack Obama visited the United Nations in New York yesterday.',
  'Héllo, wörld! The naïve café blueberries.',
  'CJK: 我爱自然语言处理 and emoji 🤗🚀 rocket',
  'cafe\u0301 society',
  '',
  LONG,
];
/** The texts transformers.js answers as Python's pipeline would: no [UNK] word, within 512 tokens. */
const ORACLE_TEXTS = TEXTS.filter((text) => !/[我🤗]/u.test(text) && text !== LONG);
const LIMITS = { maxInputChars: 20000, maxBatchItems: 64, truncation: true };

env.allowRemoteModels = false;
env.allowLocalModels = true;

type Entity = TokenEntity | GroupedEntity;

let tokenizer: TextTokenizer;
let model: FixtureModel;
let reference: TokenClassificationPipeline;
let referenceTokenizer: PreTrainedTokenizer;
let labels: string[];
let vocabulary: Map<number, string>;
let specialIds: { cls: number; sep: number };

beforeAll(async () => {
  const dir = await ensureFixture(FIXTURE);
  env.localModelPath = dirname(dir);
  tokenizer = await loadTokenizerFromDir(dir);
  model = await openFixtureModel(dir);
  reference = await pipeline('token-classification', FIXTURE, { dtype: 'fp32', local_files_only: true });
  referenceTokenizer = await AutoTokenizer.from_pretrained(FIXTURE, { local_files_only: true });
  labels = tokenizer.modelConfig.labels ?? [];
  const vocab = referenceTokenizer.get_vocab();
  vocabulary = new Map([...vocab].map(([token, id]) => [id, token]));
  specialIds = { cls: vocab.get('[CLS]')!, sep: vocab.get('[SEP]')! };
});

afterAll(async () => {
  await model.release();
  await reference.dispose();
});

/** What the gateway answers for a token-classification body. */
async function ours(body: unknown): Promise<{ entities: Entity[][]; unknownIndexes: Set<number>[] }> {
  const request = parseServeRequest(body, LIMITS, { task: 'token-classification' });
  const { tensors } = encodeInputs({ ...request, tokenizer, inputNames: model.inputNames });
  const logits = await model.run(tensors);
  const inputIds = tensors.input_ids!.data;
  const sequence = tensors.input_ids!.dims[1];
  const entities = classifyTokenRows({
    texts: request.texts,
    tokenizer,
    inputIds,
    attentionMask: tensors.attention_mask?.data,
    logits: logits.data,
    logitsDims: logits.dims,
    labels,
    options: request.tokenClassification!,
  });
  const unknownIndexes = request.texts.map((_, row) => {
    const indexes = new Set<number>();
    for (let i = 0; i < sequence; i++)
      if (Number(inputIds[row * sequence + i]) === tokenizer.unknownId) indexes.add(i);
    return indexes;
  });
  return { entities, unknownIndexes };
}

function expectSameEntities(actual: readonly Entity[], expected: readonly Record<string, unknown>[]): void {
  const strip = ({ score, start, end, ...rest }: Record<string, unknown>) => {
    void start;
    void end;
    return { rest, score: score as number };
  };
  expect(actual.map((e) => strip(e).rest)).toEqual(expected.map((e) => strip(e).rest));
  actual.forEach((entity, i) =>
    expect(Math.abs(entity.score - strip(expected[i]!).score)).toBeLessThan(TOLERANCE),
  );
}

/** Lower-cased, accents and spaces removed: how the uncased tokenizer sees a span of text. */
function folded(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{Mn}/gu, '')
    .toLowerCase()
    .replace(/\s+/g, '');
}

describe('token-classification on tiny-bert-ner, aggregation none', () => {
  it.each([[[]], [['O']]])(
    "gives the pipeline's tokens, labels and scores (ignore_labels %j)",
    async (ignore) => {
      const texts = TEXTS.filter((text) => text !== LONG);
      const { entities, unknownIndexes } = await ours({ text: texts, parameters: { ignore_labels: ignore } });
      const expected = (await reference(texts, { ignore_labels: ignore })) as unknown as Record<
        string,
        unknown
      >[][];
      texts.forEach((_, row) => {
        // transformers.js drops [UNK] tokens; Python's pipeline (and we) keep them with the text as word.
        const known = entities[row]!.filter((e) => !unknownIndexes[row]!.has((e as TokenEntity).index));
        expectSameEntities(known, expected[row]!);
      });
      expect(entities.flat().length).toBeGreaterThan(20);
    },
  );

  it('places every token on the characters it came from, [UNK] words taken from the text', async () => {
    const { entities, unknownIndexes } = await ours({ text: TEXTS, parameters: { ignore_labels: [] } });
    TEXTS.forEach((text, row) => {
      const chars = [...text];
      for (const entity of entities[row] as TokenEntity[]) {
        const span = chars.slice(entity.start!, entity.end!).join('');
        if (unknownIndexes[row]!.has(entity.index)) expect(entity.word).toBe(span);
        else expect(folded(span)).toBe(entity.word.replace(/^##/, ''));
      }
    });
    const [first] = (await ours({ text: 'Héllo 🤗 cafe\u0301!', parameters: { ignore_labels: [] } }))
      .entities;
    expect((first as TokenEntity[]).map((e) => [e.word, e.start, e.end])).toEqual([
      ['hello', 0, 5],
      ['🤗', 6, 7],
      ['cafe', 8, 12],
      ['!', 13, 14],
    ]);
  });

  it('answers nothing for an empty text; a text over 512 tokens keeps [CLS], its first 510 and [SEP]', async () => {
    const { entities } = await ours({ text: ['', LONG], parameters: { ignore_labels: [] } });
    expect(entities[0]).toEqual([]);
    expect(entities[1]).toHaveLength(510);
    expect((entities[1] as TokenEntity[]).map((e) => e.index)).toEqual(
      Array.from({ length: 510 }, (_, i) => i + 1),
    );
  });
});

describe('token-classification on tiny-bert-ner, aggregation simple', () => {
  const plain = ORACLE_TEXTS;

  it('groups like the pipeline when nothing is ignored', async () => {
    const { entities } = await ours({
      text: plain,
      parameters: { aggregation_strategy: 'simple', ignore_labels: [] },
    });
    const expected = (await reference(plain, {
      aggregation_strategy: 'simple',
      ignore_labels: [],
    })) as unknown as Record<string, unknown>[][];
    plain.forEach((_, row) => expectSameEntities(entities[row]!, expected[row]!));
  });
});

/** Python pipeline semantics from raw logits of transformers.js' tokenization (no shared code). */
async function expectation(
  text: string,
  strategy: AggregationStrategy,
): Promise<Omit<GroupedEntity, 'start' | 'end'>[]> {
  const encoded = referenceTokenizer(text, { add_special_tokens: false, return_tensor: false });
  const content = encoded.input_ids.slice(0, 510);
  const ids = [specialIds.cls, ...content, specialIds.sep];
  const dims: [number, number] = [1, ids.length];
  const row = (values: number[]) => BigInt64Array.from(values, (v) => BigInt(v));
  const logits = await model.run({
    input_ids: { datatype: 'INT64', dims, data: row(ids) },
    attention_mask: { datatype: 'INT64', dims, data: row(ids.map(() => 1)) },
    token_type_ids: { datatype: 'INT64', dims, data: row(ids.map(() => 0)) },
  });
  const width = labels.length;
  const tokens = ids.slice(1, -1).map((id, k) => {
    const i = k + 1;
    const scores = Array.from(softmax(logits.data.subarray(i * width, (i + 1) * width)));
    const token = vocabulary.get(id)!;
    return { token, scores, subword: token.startsWith('##') };
  });
  const best = (scores: number[]) => scores.indexOf(Math.max(...scores));
  // WordPiece's decoder: "##" glued, else a space; cleanup glues " ." " ," " !" " ?" as Python's does.
  const join = (words: string[]) =>
    words
      .map((w, i) => (i === 0 ? w : w.startsWith('##') ? w.slice(2) : ` ${w}`))
      .map((w) => w.replace(/^ ([.,!?])$/, '$1'))
      .join('');
  let labeled: { entity: string; score: number; word: string }[];
  if (strategy === 'simple') {
    labeled = tokens.map((t) => ({
      entity: labels[best(t.scores)]!,
      score: Math.max(...t.scores),
      word: t.token,
    }));
  } else {
    const words: (typeof tokens)[] = [];
    for (const t of tokens)
      if (t.subword && words.length > 0) words.at(-1)!.push(t);
      else words.push([t]);
    labeled = words.map((word) => {
      let scores = word[0]!.scores;
      if (strategy === 'max')
        scores = word.reduce((a, b) => (Math.max(...b.scores) > Math.max(...a.scores) ? b : a)).scores;
      if (strategy === 'average')
        scores = scores.map((_, j) => word.reduce((sum, t) => sum + t.scores[j]!, 0) / word.length);
      return {
        entity: labels[best(scores)]!,
        score: Math.max(...scores),
        word: join(word.map((t) => t.token)),
      };
    });
  }
  const groups: (typeof labeled)[] = [];
  for (const entity of labeled) {
    const last = groups.at(-1)?.at(-1);
    const tag = entity.entity.replace(/^[BI]-/, '');
    if (last && !entity.entity.startsWith('B-') && tag === last.entity.replace(/^[BI]-/, ''))
      groups.at(-1)!.push(entity);
    else groups.push([entity]);
  }
  return groups.map((members) => ({
    entity_group: members[0]!.entity.replace(/^[BI]-/, ''),
    score: members.reduce((sum, m) => sum + m.score, 0) / members.length,
    word: join(members.map((m) => m.word)),
  }));
}

describe.each(['simple', 'first', 'average', 'max'] as const)(
  'token-classification on tiny-bert-ner, aggregation %s (Python pipeline semantics)',
  (strategy) => {
    const known = [...ORACLE_TEXTS, LONG];

    it('matches the expectation computed from the logits, spans on the words they name', async () => {
      const { entities } = await ours({
        text: known,
        parameters: { aggregation_strategy: strategy, ignore_labels: [] },
      });
      for (const [row, text] of known.entries()) {
        const expected = await expectation(text, strategy);
        expectSameEntities(entities[row]!, expected);
        for (const entity of entities[row] as GroupedEntity[]) {
          const span = [...text].slice(entity.start!, entity.end!).join('');
          expect(folded(span)).toBe(folded(entity.word.replace(/^##/, '')));
        }
      }
    });

    it('leaves out ignored groups after grouping (default ["O"]), and answers texts with [UNK] words', async () => {
      const all = await ours({
        text: TEXTS,
        parameters: { aggregation_strategy: strategy, ignore_labels: [] },
      });
      const byDefault = await ours({ text: TEXTS, parameters: { aggregation_strategy: strategy } });
      expect(byDefault.entities).toEqual(
        all.entities.map((row) => (row as GroupedEntity[]).filter((e) => e.entity_group !== 'O')),
      );
      const words = (all.entities[3] as GroupedEntity[]).map((e) => e.word).join(' ');
      expect(words).toContain('🤗🚀');
    });
  },
);
