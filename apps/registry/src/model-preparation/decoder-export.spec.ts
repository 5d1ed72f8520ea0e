import { type TensorMetadata } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import {
  causalLmArchitecture,
  checkDecoderIo,
  checkDecoderVocab,
  eosTokenIdsOf,
  generationFactsOf,
  tokenizerVocabSize,
} from './decoder-export.js';
import { checkIoForTask } from './io-requirements.js';

const VOCAB = 50257;

/** A GPT-2 export with past of `layers` layers, in Hugging Face's names. */
function gpt2(layers = 2): { inputs: TensorMetadata[]; outputs: TensorMetadata[] } {
  const cache = (prefix: string): TensorMetadata[] =>
    Array.from({ length: layers }, (_, layer) =>
      (['key', 'value'] as const).map((half): TensorMetadata => ({
        name: `${prefix}.${layer}.${half}`,
        datatype: 'FP32',
        dims: [-1, 4, -1, 16],
      })),
    ).flat();
  return {
    inputs: [
      { name: 'input_ids', datatype: 'INT64', dims: [-1, -1] },
      { name: 'attention_mask', datatype: 'INT64', dims: [-1, -1] },
      { name: 'position_ids', datatype: 'INT64', dims: [-1, -1] },
      ...cache('past_key_values'),
    ],
    outputs: [{ name: 'logits', datatype: 'FP32', dims: [-1, -1, VOCAB] }, ...cache('present')],
  };
}

const BERT_INPUTS: TensorMetadata[] = [
  { name: 'input_ids', datatype: 'INT64', dims: [-1, -1] },
  { name: 'attention_mask', datatype: 'INT64', dims: [-1, -1] },
  { name: 'token_type_ids', datatype: 'INT64', dims: [-1, -1] },
];

describe('checkDecoderIo', () => {
  it('accepts a decoder export with past, with or without position_ids', () => {
    const { inputs, outputs } = gpt2();
    expect(checkDecoderIo(inputs, outputs)).toEqual([]);
    expect(checkIoForTask('text-generation', inputs, outputs)).toEqual([]);
    expect(
      checkDecoderIo(
        inputs.filter((input) => input.name !== 'position_ids'),
        outputs,
      ),
    ).toEqual([]);
  });

  it('refuses an export without past, saying how to export one', () => {
    const { inputs, outputs } = gpt2();
    const [problem, ...rest] = checkDecoderIo(
      inputs.slice(0, 3),
      outputs.filter((output) => output.name === 'logits'),
    );
    expect(rest).toEqual([]);
    expect(problem).toMatch(
      /^a text-generation model needs past_key_values inputs \(an export with past: optimum-cli export onnx --task text-generation-with-past/,
    );
  });

  it('refuses a BERT classifier with one readable reason', () => {
    const problems = checkIoForTask('text-generation', BERT_INPUTS, [
      { name: 'logits', datatype: 'FP32', dims: [-1, 2] },
    ]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/needs past_key_values inputs .*the model has inputs input_ids \(INT64/);
  });

  it('names a missing layer, a missing present output and a cache tensor of the wrong type', () => {
    const { inputs, outputs } = gpt2(3);
    const problems = checkDecoderIo(
      inputs
        .filter((input) => input.name !== 'past_key_values.1.value')
        .map((input) => (input.name === 'past_key_values.2.key' ? { ...input, datatype: 'FP16' } : input)),
      outputs.filter((output) => output.name !== 'present.0.key'),
    );
    expect(problems).toEqual([
      'task text-generation needs an output present.0.key for the input past_key_values.0.key',
      'task text-generation needs past_key_values.1.value: the cache inputs must cover layers 0..2',
      'task text-generation needs past_key_values.2.key to be FP32 [batch, heads, sequence, head size]; the model declares past_key_values.2.key (FP16 [-1, 4, -1, 16])',
    ]);
  });

  it("accepts a merged decoder's use_cache_branch BOOL [1], for both decoder tasks", () => {
    const { inputs, outputs } = gpt2();
    const merged = [...inputs, { name: 'use_cache_branch', datatype: 'BOOL' as const, dims: [1] }];
    expect(checkDecoderIo(merged, outputs)).toEqual([]);
    const states = { name: 'encoder_hidden_states', datatype: 'FP32' as const, dims: [-1, -1, 64] };
    expect(checkDecoderIo([...merged, states], outputs, 'image-to-text')).toEqual([]);
    expect(
      checkDecoderIo(
        [...inputs, { name: 'use_cache_branch', datatype: 'INT64' as const, dims: [1] }],
        outputs,
      ),
    ).toEqual([
      "task text-generation feeds a merged decoder's use_cache_branch as BOOL [1]; the model declares use_cache_branch (INT64 [1])",
    ]);
  });

  it('refuses inputs it cannot feed and logits of the wrong shape', () => {
    const { inputs, outputs } = gpt2();
    const problems = checkDecoderIo(
      [...inputs, { name: 'token_type_ids', datatype: 'INT64', dims: [-1, -1] }],
      outputs.map((output) => (output.name === 'logits' ? { ...output, dims: [-1, VOCAB] } : output)),
    );
    expect(problems).toEqual([
      expect.stringMatching(
        /feeds only input_ids, attention_mask, position_ids, use_cache_branch .*also needs token_type_ids \(INT64 \[-1, -1\]\)/,
      ),
      'task text-generation needs an FP32 output named logits [batch, sequence, vocab]; the model has logits (FP32 [-1, 50257])',
    ]);
  });
});

describe('encoder tasks on a decoder', () => {
  it('suggest text-generation', () => {
    const { inputs, outputs } = gpt2();
    for (const task of ['text-classification', 'token-classification', 'feature-extraction'] as const) {
      expect(checkIoForTask(task, inputs, outputs)).toEqual([
        `task ${task} cannot serve a decoder export with a KV cache (past_key_values.N inputs, present.N outputs): register it as text-generation`,
      ]);
    }
    expect(checkIoForTask('raw', inputs, outputs)).toEqual([]);
  });

  it('learn a causal LM from config.json', () => {
    expect(causalLmArchitecture({ architectures: ['GPT2LMHeadModel'] })).toBe('GPT2LMHeadModel');
    expect(causalLmArchitecture({ architectures: ['LlamaForCausalLM'] })).toBe('LlamaForCausalLM');
    expect(causalLmArchitecture({ architectures: ['BertForSequenceClassification'] })).toBeUndefined();
    expect(causalLmArchitecture({})).toBeUndefined();
  });
});

describe('checkDecoderVocab', () => {
  it('accepts agreeing sizes and a model vocabulary padded beyond the tokenizer', () => {
    expect(
      checkDecoderVocab({ logits: VOCAB, config: VOCAB, tokenizer: VOCAB, eosTokenIds: [50256] }),
    ).toEqual([]);
    expect(checkDecoderVocab({ logits: 50304, config: 50304, tokenizer: VOCAB })).toEqual([]);
    expect(checkDecoderVocab({})).toEqual([]);
  });

  it('refuses a config.json, tokenizer or eos id that does not fit the logits', () => {
    expect(
      checkDecoderVocab({ logits: 1000, config: VOCAB, tokenizer: VOCAB, eosTokenIds: [50256] }),
    ).toEqual([
      "config.json says vocab_size 50257 but the model's logits score 1000 tokens",
      'tokenizer.json has ids up to 50256 but the model scores only 1000 tokens (the tokenizer belongs to another model?)',
      'eos_token_id 50256 is not a token of the model (vocabulary of 1000)',
    ]);
  });

  it('falls back to config.json when the logits vocabulary is dynamic', () => {
    expect(checkDecoderVocab({ logits: -1, config: 100, tokenizer: 200 })).toEqual([
      'tokenizer.json has ids up to 199 but the model scores only 100 tokens (the tokenizer belongs to another model?)',
    ]);
  });
});

describe('tokenizer and config readers', () => {
  it('count a BPE vocabulary with its added tokens, and a Unigram one', () => {
    expect(tokenizerVocabSize({ model: { vocab: { a: 0, b: 1 } }, added_tokens: [{ id: 5 }] })).toBe(6);
    expect(
      tokenizerVocabSize({
        model: {
          vocab: [
            ['a', 0],
            ['b', -1],
          ],
        },
      }),
    ).toBe(2);
    expect(tokenizerVocabSize('nonsense')).toBeUndefined();
  });

  it('read eos_token_id as an int or a list', () => {
    expect(eosTokenIdsOf({ eos_token_id: 50256 })).toEqual([50256]);
    expect(eosTokenIdsOf({ eos_token_id: [1, 2] })).toEqual([1, 2]);
    expect(eosTokenIdsOf({ eos_token_id: null })).toBeUndefined();
  });
});

describe('generationFactsOf', () => {
  it("reads the model's positions from config.json and the vocabulary from the logits, else vocab_size", () => {
    const { outputs } = gpt2();
    expect(generationFactsOf({ n_positions: 1024, n_ctx: 2048, vocab_size: 7 }, outputs)).toEqual({
      maxPositions: 1024,
      vocabSize: VOCAB,
    });
    const dynamic: TensorMetadata[] = [{ name: 'logits', datatype: 'FP32', dims: [-1, -1, -1] }];
    expect(generationFactsOf({ max_position_embeddings: 4096, vocab_size: 32000 }, dynamic)).toEqual({
      maxPositions: 4096,
      vocabSize: 32000,
    });
    expect(generationFactsOf({ n_ctx: 512 }, dynamic)).toEqual({ maxPositions: 512 });
  });

  it('refuses a config.json without positions, naming the keys it reads', () => {
    for (const config of [{ vocab_size: VOCAB }, undefined, { n_positions: 0 }, { n_positions: '1024' }]) {
      expect(generationFactsOf(config, gpt2().outputs)).toBe(
        "task text-generation needs the model's positions in config.json (n_positions, max_position_embeddings, n_ctx: a positive integer), to refuse prompts that do not fit",
      );
    }
  });
});
