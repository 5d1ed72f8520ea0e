/**
 * What preparation reads of a model's tokenizer bundle (config.json, generation_config.json,
 * preprocessor_config.json, tokenizer.json) and what it holds against the model's task there.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  hasPastInputs,
  type ImageFacts,
  isGenerativeTask,
  type ModelTask,
  type TensorMetadata,
} from '@modelgate/contracts';
import {
  causalLmArchitecture,
  checkDecoderVocab,
  eosTokenIdsOf,
  generationFactsOf,
  tokenizerVocabSize,
} from './decoder-export.js';
import { readCaptionDecoding } from '@modelgate/generation';
import { readImageProcessing } from './image-io.js';
import { checkDecoderStart, decoderConfigOf } from './vision-encoder-decoder.js';

/** The config a decoder's generation facts come from: config.json, or for image-to-text its `decoder`. */
export function generationConfigOf(task: ModelTask, config: unknown): unknown {
  return task === 'image-to-text' ? decoderConfigOf(config) : config;
}

/** The JSON files of a tokenizer bundle preparation reads; undefined when absent or unreadable. */
export interface BundleFiles {
  config?: unknown;
  generationConfig?: unknown;
  tokenizerConfig?: unknown;
  /** preprocessor_config.json: an image model's processor settings. */
  preprocessorConfig?: unknown;
  /** Read for text-generation and image-to-text only (it can be megabytes); null when the bundle has none. */
  tokenizer?: unknown;
}

export async function readBundle(dir: string, withTokenizer: boolean): Promise<BundleFiles> {
  const read = async (name: string): Promise<unknown> => {
    try {
      return JSON.parse(await readFile(join(dir, name), 'utf8')) as unknown;
    } catch {
      return undefined;
    }
  };
  return {
    config: await read('config.json'),
    generationConfig: await read('generation_config.json'),
    tokenizerConfig: await read('tokenizer_config.json'),
    preprocessorConfig: await read('preprocessor_config.json'),
    ...(withTokenizer ? { tokenizer: (await read('tokenizer.json')) ?? null } : {}),
  };
}

/**
 * Why a model that failed its task's checks may be a decoder: its config.json names a causal
 * language model (…ForCausalLM). Only a hint beside other problems: a causal LM exported for
 * feature-extraction keeps that config.json and is served as such.
 */
export function causalLmHint(
  task: ModelTask,
  bundle: BundleFiles,
  inputs: readonly TensorMetadata[],
): string | undefined {
  if (task === 'raw' || isGenerativeTask(task) || hasPastInputs(inputs)) return undefined;
  const architecture = causalLmArchitecture(bundle.config);
  return architecture === undefined
    ? undefined
    : `config.json names ${architecture}, a causal language model: register it as text-generation ` +
        '(an export with past: optimum-cli export onnx --task text-generation-with-past)';
}

/**
 * What the tokenizer bundle says against a text-generation model (it needs tokenizer.json and a
 * vocabulary its logits, config.json and tokenizer agree on), an image-to-text model (the same of
 * its decoder, plus preprocessor_config.json and a decoder_start_token_id) or an
 * image-classification model (it needs preprocessor_config.json the gateway can run, making
 * images the graph takes: `imageInputs` are the inputs of the graph that takes pixel_values).
 */
export function checkBundleForTask(
  task: ModelTask,
  bundle: BundleFiles,
  outputs: readonly TensorMetadata[],
  imageInputs: readonly TensorMetadata[],
): string[] {
  if (task === 'image-classification')
    return readImageProcessing(task, bundle.preprocessorConfig, imageInputs).problems;
  if (task === 'question-answering') return byteLevelQuestionAnswering(bundle.tokenizer);
  if (!isGenerativeTask(task)) return [];
  const config = generationConfigOf(task, bundle.config);
  const configVocab = (config as { vocab_size?: unknown } | undefined)?.vocab_size;
  const facts = generationFactsOf(config, outputs, task);
  const problems =
    task === 'image-to-text'
      ? [
          ...readImageProcessing(task, bundle.preprocessorConfig, imageInputs).problems,
          ...checkDecoderStart(
            bundle.config,
            bundle.generationConfig,
            typeof facts === 'object' ? facts.vocabSize : undefined,
          ),
        ]
      : [];
  if (bundle.tokenizer === null || bundle.tokenizer === undefined) {
    return [
      ...problems,
      `task ${task} needs tokenizer.json in the tokenizer bundle (to tokenize prompts and detokenize text)`,
    ];
  }
  return [
    ...problems,
    ...checkDecoderVocab({
      logits: outputs.find((output) => output.name === 'logits')?.dims[2],
      config: typeof configVocab === 'number' ? configVocab : undefined,
      tokenizer: tokenizerVocabSize(bundle.tokenizer),
      eosTokenIds: eosTokenIdsFor(task, bundle, config),
    }),
    ...(typeof facts === 'string' ? [facts] : []),
  ];
}

/**
 * An answer is a span of the context's characters, which the gateway finds from its tokens'
 * offsets. Question answering is checked against transformers for WordPiece tokenizers (BERT's)
 * only; byte-level BPE tokens (RoBERTa, GPT-2: `Ġword`) have offsets now, but their pair template
 * and span search have no parity test yet, so such a model is refused rather than served unchecked.
 */
function byteLevelQuestionAnswering(tokenizer: unknown): string[] {
  const preTokenizer = (tokenizer as { pre_tokenizer?: unknown } | null | undefined)?.pre_tokenizer;
  const steps = (preTokenizer as { pretokenizers?: unknown } | null | undefined)?.pretokenizers;
  const types = [preTokenizer, ...(Array.isArray(steps) ? (steps as unknown[]) : [])].map(
    (step) => (step as { type?: unknown } | null | undefined)?.type,
  );
  if (!types.includes('ByteLevel')) return [];
  return [
    'task question-answering: the tokenizer is byte-level BPE (RoBERTa or GPT-2 style), which question answering ' +
      'is not verified with; question-answering supports WordPiece tokenizers (BERT and DistilBERT style)',
  ];
}

/** ModelSpec.image of an image model: the size its processor gives every image, when it fixes one. */
export function imageFactsOf(
  task: ModelTask,
  bundle: BundleFiles,
  imageInputs: readonly TensorMetadata[],
): ImageFacts | undefined {
  if (task !== 'image-classification' && task !== 'image-to-text') return undefined;
  return readImageProcessing(task, bundle.preprocessorConfig, imageInputs).facts;
}

/**
 * The ids that end a sequence, as the gateway will stop on them: a caption's by the rule it
 * decodes with (readCaptionDecoding: config.json, its decoder, then generation_config.json),
 * text-generation's from generation_config.json, else config.json.
 */
function eosTokenIdsFor(task: ModelTask, bundle: BundleFiles, config: unknown): number[] | undefined {
  if (task === 'image-to-text') {
    const decoding = readCaptionDecoding(bundle.config, bundle.generationConfig);
    return typeof decoding === 'string' ? undefined : decoding.eosTokenIds;
  }
  return eosTokenIdsOf(bundle.generationConfig) ?? eosTokenIdsOf(bundle.config) ?? eosTokenIdsOf(config);
}
