// The ASCII fast path of BERT tokenizers (ascii-wordpiece.ts) against the reference oracle
// (DESIGN §5): on thousands of generated texts, transformers' AutoTokenizer on the same directory
// gives the same ids. The texts mix vocabulary words, case, digits, every printable ASCII
// character, tabs and line breaks, words around max_input_chars_per_word, literal special tokens
// and non-ASCII characters (which go to the library), for the uncased fixture and for a cased copy
// of it with an added token. Its character offsets must be those of the library's replay, which
// the same pipeline written as a Sequence (no fast path) gives.
import { copyFile, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { AutoTokenizer, env, type PreTrainedTokenizer } from '@huggingface/transformers';
import { ensureFixture } from '@modelgate/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { TOKENIZER_FILES, type TextTokenizer, loadTokenizerFromDir } from '../src/index.js';

env.allowRemoteModels = false;
env.allowLocalModels = true;

const TEXTS_PER_FIXTURE = 2000;
const PRINTABLE = Array.from({ length: 126 - 32 }, (_, i) => String.fromCharCode(33 + i));
const ODD_PIECES = [' ', ' ', ' ', '\t', '\n', '\r\n', '[CLS]', '[MASK', 'é', '🤗', '\u0000', '\u00a0', 'ﬁ'];

/** A small deterministic PRNG (xorshift32), so a failing text can be found again. */
function randomSource(seed: number): (n: number) => number {
  let state = seed >>> 0 || 1;
  return (n) => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state % n;
  };
}

function generatedTexts(vocabulary: readonly string[], seed: number): string[] {
  const pick = randomSource(seed);
  const word = (): string => {
    switch (pick(6)) {
      case 0:
        return (vocabulary[pick(vocabulary.length)] ?? '').replace(/^##/, '');
      case 1:
        return (vocabulary[pick(vocabulary.length)] ?? '').toUpperCase();
      case 2:
        return Array.from({ length: 1 + pick(12) }, () => PRINTABLE[pick(PRINTABLE.length)]).join('');
      case 3:
        return String(pick(100000));
      case 4:
        return 'ab'.repeat(48 + pick(6));
      default:
        return ODD_PIECES[pick(ODD_PIECES.length)] ?? '';
    }
  };
  return Array.from({ length: TEXTS_PER_FIXTURE }, (_, i) => {
    const words = Array.from({ length: pick(14) }, word);
    // Most texts stay printable ASCII, as the fast path's traffic does.
    const clean = words.filter((w) => i % 4 !== 0 || /^[\x20-\x7e\t\r\n]*$/.test(w));
    return clean.join(pick(3) === 0 ? '' : ' ');
  });
}

type Edit = (json: Record<string, unknown>) => void;

/** A copy of a fixture's tokenizer files in a directory named `name`, tokenizer.json rewritten by `edit`. */
async function tokenizerVariant(source: string, name: string, edit: Edit): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), 'modelgate-wordpiece-')), name);
  await mkdir(dir);
  for (const file of Object.values(TOKENIZER_FILES)) {
    await copyFile(join(source, file), join(dir, file)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
  const path = join(dir, TOKENIZER_FILES.tokenizerJson);
  const json = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  edit(json);
  await writeFile(path, JSON.stringify(json));
  return dir;
}

/** The same pipeline as a one-step Sequence: the library then tokenizes everything (no fast path). */
const libraryOnly: Edit = (json) => {
  json.normalizer = { type: 'Sequence', normalizers: [json.normalizer] };
  json.pre_tokenizer = { type: 'Sequence', pretokenizers: [json.pre_tokenizer] };
};

const variants: Record<string, Edit> = {
  'tiny-bert-sst2 (uncased)': () => {},
  'tiny-bert-sst2, cased, with an added token': (json) => {
    (json.normalizer as Record<string, unknown>).lowercase = false;
    const added = json.added_tokens as Record<string, unknown>[];
    added.push({
      id: 30522,
      content: 'Hello',
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: true,
      special: false,
    });
  },
};

describe.each(Object.keys(variants))('the ASCII WordPiece fast path of %s', (variant) => {
  let ours: TextTokenizer;
  let library: TextTokenizer;
  let theirs: PreTrainedTokenizer;
  let texts: string[];

  beforeAll(async () => {
    const fixture = await ensureFixture('tiny-bert-sst2');
    const edit = variants[variant] as Edit;
    const dir = await tokenizerVariant(fixture, 'fast', edit);
    ours = await loadTokenizerFromDir(dir);
    library = await loadTokenizerFromDir(
      await tokenizerVariant(fixture, 'library', (json) => {
        edit(json);
        libraryOnly(json);
      }),
    );
    env.localModelPath = dirname(dir);
    theirs = await AutoTokenizer.from_pretrained(basename(dir), { local_files_only: true });
    const json = JSON.parse(await readFile(join(dir, TOKENIZER_FILES.tokenizerJson), 'utf8')) as {
      model: { vocab: Record<string, number> };
    };
    texts = generatedTexts(Object.keys(json.model.vocab), variant.length);
  });

  it('is taken for this BERT pipeline, and not for the same pipeline written as a Sequence', () => {
    expect(ours.asciiFastPath).toBe(true);
    expect(library.asciiFastPath).toBe(false);
  });

  it('gives transformers’ ids for every generated text', () => {
    const mismatches = texts.filter(
      (text) =>
        JSON.stringify(ours.tokenize(text)) !==
        JSON.stringify(theirs.encode(text, { add_special_tokens: false })),
    );
    expect(mismatches.slice(0, 5)).toEqual([]);
    // Most texts are the fast path's (printable ASCII without the '[' of the special tokens),
    // and they reach its every branch: unknown words, long words, continuations.
    const fastTexts = texts.filter((text) => /^[\x20-\x5a\x5c-\x7e\t\r\n]*$/.test(text));
    expect(fastTexts.length).toBeGreaterThan(texts.length / 2);
    const ids = texts.flatMap((text) => ours.tokenize(text));
    expect(ids).toContain(ours.unknownId);
    expect(ids.some((id) => ours.idToToken(id)?.startsWith('##'))).toBe(true);
  });

  it('gives the ids and character offsets of the library’s replay (token-offsets.ts) for every text', () => {
    const mismatches = texts.filter(
      (text) =>
        JSON.stringify(ours.tokenizeWithOffsets(text)) !== JSON.stringify(library.tokenizeWithOffsets(text)),
    );
    expect(mismatches.slice(0, 5)).toEqual([]);
    // Offsets were placed, not all left out.
    const placed = texts.flatMap((text) => ours.tokenizeWithOffsets(text).offsets).filter(Boolean);
    expect(placed.length).toBeGreaterThan(texts.length);
  });
});
