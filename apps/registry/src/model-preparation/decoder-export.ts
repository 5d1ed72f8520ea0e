import {
  ENCODER_HIDDEN_STATES,
  type GenerationFacts,
  PAST_KEY_VALUES_INPUT,
  type TensorMetadata,
  USE_CACHE_BRANCH,
  hasPastInputs,
} from '@modelgate/contracts';
import { describeTensors } from '@modelgate/contracts';
import { readGenerationDefaults } from '@modelgate/generation';

/** Tasks served by a decoder export with past. */
export type DecoderTask = 'text-generation' | 'image-to-text';

/** Its cache outputs: `present.<layer>.key|value`. */
const PRESENT_OUTPUT = /^present\.(\d+)\.(key|value)$/;

/** The inputs besides the cache that the worker feeds a decoder of `task`. */
function decoderInputs(task: DecoderTask): readonly string[] {
  const inputs = ['input_ids', 'attention_mask', 'position_ids'];
  return task === 'image-to-text'
    ? [...inputs, ENCODER_HIDDEN_STATES, USE_CACHE_BRANCH]
    : [...inputs, USE_CACHE_BRANCH];
}

/** How to get an export the worker can serve. */
const EXPORT_WITH_PAST =
  'an export with past: optimum-cli export onnx --task text-generation-with-past, or a transformers.js export';
const EXPORT_VISION_ENCODER_DECODER =
  'a vision-encoder-decoder export with past: optimum-cli export onnx --task image-to-text-with-past, or a ' +
  'transformers.js export (decoder_model_merged.onnx)';

/** Layer numbers of the tensors whose names match `pattern`, with the key/value halves seen. */
function layersOf(tensors: readonly TensorMetadata[], pattern: RegExp): Map<number, TensorMetadata[]> {
  const layers = new Map<number, TensorMetadata[]>();
  for (const tensor of tensors) {
    const match = pattern.exec(tensor.name);
    if (match === null) continue;
    const layer = Number(match[1]);
    layers.set(layer, [...(layers.get(layer) ?? []), tensor]);
  }
  return layers;
}

/** Problems of one cache tensor: FP32, 4-D [batch, heads, sequence, head size]. */
function checkCacheTensor(tensor: TensorMetadata, task: DecoderTask): string[] {
  if (tensor.datatype === 'FP32' && tensor.dims.length === 4) return [];
  return [
    `task ${task} needs ${tensor.name} to be FP32 [batch, heads, sequence, head size]; ` +
      `the model declares ${describeTensors([tensor])}`,
  ];
}

/**
 * What keeps a model from serving text-generation (or being image-to-text's decoder), as
 * sentences a person can act on; empty when it is a decoder export with past in Hugging Face's
 * layout: INT64 `input_ids` and `attention_mask` (`position_ids` optional; a merged decoder's
 * `use_cache_branch` BOOL [1] too), FP32
 * `past_key_values.N.key/value` inputs for N = 0..L-1 with matching `present.N.key/value` outputs,
 * and FP32 `logits` [batch, sequence, vocab]. image-to-text's decoder also takes FP32
 * `encoder_hidden_states` [batch, encoder sequence, hidden].
 */
export function checkDecoderIo(
  inputs: readonly TensorMetadata[],
  outputs: readonly TensorMetadata[],
  task: DecoderTask = 'text-generation',
): string[] {
  const exportHint = task === 'image-to-text' ? EXPORT_VISION_ENCODER_DECODER : EXPORT_WITH_PAST;
  if (!hasPastInputs(inputs)) {
    return [
      `${task === 'image-to-text' ? 'an' : 'a'} ${task} model needs past_key_values inputs (${exportHint}); the ${task === 'image-to-text' ? 'decoder' : 'model'} ` +
        `has inputs ${describeTensors(inputs)} and outputs ${describeTensors(outputs)}`,
    ];
  }
  const problems: string[] = [];
  for (const name of ['input_ids', 'attention_mask', 'position_ids'] as const) {
    const input = inputs.find((candidate) => candidate.name === name);
    if (input === undefined) {
      if (name !== 'position_ids') problems.push(`task ${task} needs an input named ${name}`);
    } else if (input.datatype !== 'INT64') {
      problems.push(`task ${task} needs ${name} to be INT64; the model declares ${input.datatype}`);
    }
  }
  if (task === 'image-to-text') problems.push(...checkEncoderHiddenStatesInput(inputs));
  const branch = inputs.find((input) => input.name === USE_CACHE_BRANCH);
  if (
    branch !== undefined &&
    (branch.datatype !== 'BOOL' || branch.dims.length !== 1 || branch.dims[0] === 0)
  ) {
    problems.push(
      `task ${task} feeds a merged decoder's ${USE_CACHE_BRANCH} as BOOL [1]; the model declares ${describeTensors([branch])}`,
    );
  }
  const fed = decoderInputs(task);
  const unfeedable = inputs.filter(
    (input) => !fed.includes(input.name) && !PAST_KEY_VALUES_INPUT.test(input.name),
  );
  if (unfeedable.length > 0) {
    problems.push(
      `task ${task} feeds only ${fed.join(', ')} and past_key_values.N.key/value; the model ` +
        `also needs ${describeTensors(unfeedable)} (${exportHint})`,
    );
  }

  const past = layersOf(inputs, PAST_KEY_VALUES_INPUT);
  const present = layersOf(outputs, PRESENT_OUTPUT);
  const layers = past.size;
  for (let layer = 0; layer < layers; layer += 1) {
    for (const half of ['key', 'value'] as const) {
      const input = past.get(layer)?.find((tensor) => tensor.name.endsWith(`.${half}`));
      const output = present.get(layer)?.find((tensor) => tensor.name.endsWith(`.${half}`));
      if (input === undefined) {
        problems.push(
          `task ${task} needs past_key_values.${layer}.${half}: the cache inputs must cover layers 0..${layers - 1}`,
        );
      } else {
        problems.push(...checkCacheTensor(input, task));
      }
      if (output === undefined) {
        problems.push(
          `task ${task} needs an output present.${layer}.${half} for the input past_key_values.${layer}.${half}`,
        );
      } else {
        problems.push(...checkCacheTensor(output, task));
      }
    }
  }
  const extraPresent = [...present.keys()].filter((layer) => layer >= layers);
  if (extraPresent.length > 0) {
    problems.push(
      `the model has present outputs for layers ${extraPresent.join(', ')} without past_key_values inputs`,
    );
  }

  const logits = outputs.find((output) => output.name === 'logits');
  if (logits === undefined || logits.datatype !== 'FP32' || logits.dims.length !== 3) {
    problems.push(
      `task ${task} needs an FP32 output named logits [batch, sequence, vocab]; the model has ` +
        `${logits === undefined ? 'no logits' : describeTensors([logits])}`,
    );
  }
  return problems;
}

/** image-to-text: problems of the decoder's encoder_hidden_states input (FP32 [batch, encoder sequence, hidden]). */
function checkEncoderHiddenStatesInput(inputs: readonly TensorMetadata[]): string[] {
  const states = inputs.find((input) => input.name === ENCODER_HIDDEN_STATES);
  if (states === undefined) {
    return [
      `task image-to-text needs a decoder with an input named ${ENCODER_HIDDEN_STATES} (the encoder's ` +
        `last_hidden_state, which its cross-attention reads); the decoder has inputs ${describeTensors(inputs)}`,
    ];
  }
  if (states.datatype === 'FP32' && states.dims.length === 3) return [];
  return [
    `task image-to-text needs the decoder's ${ENCODER_HIDDEN_STATES} to be FP32 [batch, encoder sequence, hidden]; ` +
      `the decoder declares ${describeTensors([states])}`,
  ];
}

/** The vocabulary sizes preparation could read; undefined where the source does not say. */
export interface DecoderVocab {
  /** The last dimension of `logits`, when static. */
  logits?: number | undefined;
  /** config.json's vocab_size. */
  config?: number | undefined;
  /** One more than the largest id tokenizer.json gives (vocab and added tokens). */
  tokenizer?: number | undefined;
  /** eos_token_id of generation_config.json, else config.json. */
  eosTokenIds?: readonly number[] | undefined;
}

/**
 * Problems when the model, its config.json and its tokenizer disagree on the vocabulary: the
 * logits must score every id the tokenizer can produce (a model may pad its vocabulary beyond
 * the tokenizer's, never fall short), config.json's vocab_size must be the logits' size, and the
 * end-of-sequence ids must be ids the model can produce.
 */
export function checkDecoderVocab(vocab: DecoderVocab): string[] {
  const problems: string[] = [];
  const modelSize = vocab.logits !== undefined && vocab.logits > 0 ? vocab.logits : vocab.config;
  if (
    vocab.logits !== undefined &&
    vocab.logits > 0 &&
    vocab.config !== undefined &&
    vocab.config !== vocab.logits
  ) {
    problems.push(
      `config.json says vocab_size ${vocab.config} but the model's logits score ${vocab.logits} tokens`,
    );
  }
  if (modelSize !== undefined && vocab.tokenizer !== undefined && vocab.tokenizer > modelSize) {
    problems.push(
      `tokenizer.json has ids up to ${vocab.tokenizer - 1} but the model scores only ${modelSize} tokens ` +
        '(the tokenizer belongs to another model?)',
    );
  }
  const beyond = (vocab.eosTokenIds ?? []).filter((id) => modelSize !== undefined && id >= modelSize);
  if (beyond.length > 0) {
    problems.push(
      `eos_token_id ${beyond.join(', ')} is not a token of the model (vocabulary of ${modelSize ?? '?'})`,
    );
  }
  return problems;
}

/** One more than the largest token id of a Hugging Face tokenizer.json; undefined when it cannot be told. */
export function tokenizerVocabSize(tokenizer: unknown): number | undefined {
  if (typeof tokenizer !== 'object' || tokenizer === null) return undefined;
  const { model, added_tokens: added } = tokenizer as { model?: { vocab?: unknown }; added_tokens?: unknown };
  const vocab = model?.vocab;
  let size: number | undefined;
  if (Array.isArray(vocab))
    size = vocab.length; // Unigram: [[piece, score], ...] by id
  else if (typeof vocab === 'object' && vocab !== null) {
    const ids = Object.values(vocab).filter((id): id is number => Number.isInteger(id));
    size = ids.length === 0 ? undefined : Math.max(...ids) + 1;
  }
  if (Array.isArray(added)) {
    for (const token of added as { id?: unknown }[]) {
      if (typeof token.id === 'number' && Number.isInteger(token.id))
        size = Math.max(size ?? 0, token.id + 1);
    }
  }
  return size;
}

/** The end-of-sequence ids a Hugging Face config gives (`eos_token_id`: an int or a list). */
export function eosTokenIdsOf(config: unknown): number[] | undefined {
  if (typeof config !== 'object' || config === null) return undefined;
  const eos = (config as { eos_token_id?: unknown }).eos_token_id;
  if (typeof eos === 'number' && Number.isInteger(eos)) return [eos];
  if (Array.isArray(eos) && eos.every((id) => typeof id === 'number' && Number.isInteger(id)))
    return eos as number[];
  return undefined;
}

/** The architecture a config.json names when it is a causal language model (…ForCausalLM, …LMHeadModel). */
export function causalLmArchitecture(config: unknown): string | undefined {
  if (typeof config !== 'object' || config === null) return undefined;
  const architectures = (config as { architectures?: unknown }).architectures;
  if (!Array.isArray(architectures)) return undefined;
  return architectures.find(
    (name): name is string =>
      typeof name === 'string' && (name.endsWith('ForCausalLM') || name.endsWith('LMHeadModel')),
  );
}

/** config.json keys that give a decoder's positions, in the order they are read. */
const POSITION_KEYS = ['n_positions', 'max_position_embeddings', 'n_ctx'] as const;

/**
 * The facts the worker checks generation requests against (DESIGN: ModelSpec.generation): the
 * positions config.json gives (n_positions, max_position_embeddings or n_ctx) and the vocabulary
 * the logits score (their static last dim, else config.json vocab_size); or the problem when
 * config.json gives no positions (image-to-text: `config` is the decoder's sub-config) (a prompt + max_new_tokens beyond them would fail the whole
 * running batch on the worker).
 */
export function generationFactsOf(
  config: unknown,
  outputs: readonly TensorMetadata[],
  task: DecoderTask = 'text-generation',
): GenerationFacts | string {
  const fields = (typeof config === 'object' && config !== null ? config : {}) as Record<string, unknown>;
  const positions = POSITION_KEYS.map((key) => fields[key]).find(
    (value): value is number => typeof value === 'number' && Number.isInteger(value) && value > 0,
  );
  if (positions === undefined) {
    const where = task === 'image-to-text' ? "config.json's decoder" : 'config.json';
    return (
      `task ${task} needs the model's positions in ${where} (${POSITION_KEYS.join(', ')}: ` +
      'a positive integer), to refuse prompts that do not fit'
    );
  }
  const logits = outputs.find((output) => output.name === 'logits')?.dims[2];
  const vocab = logits !== undefined && logits > 0 ? logits : fields.vocab_size;
  return {
    maxPositions: positions,
    ...(typeof vocab === 'number' && Number.isInteger(vocab) && vocab > 0 ? { vocabSize: vocab } : {}),
  };
}

/**
 * `facts` with the decoding defaults of a text-generation model's generation_config.json (what
 * applies, and the fields modelgate does not apply as `field=value`); a problem string passes through.
 */
export function withGenerationDefaults(
  facts: GenerationFacts | string,
  generationConfig: unknown,
): GenerationFacts | string {
  if (typeof facts === 'string' || typeof generationConfig !== 'object' || generationConfig === null)
    return facts;
  const { defaults, unsupported } = readGenerationDefaults(generationConfig as Record<string, unknown>);
  return {
    ...facts,
    ...(Object.keys(defaults).length > 0 ? { defaults } : {}),
    ...(unsupported.length > 0 ? { unsupportedDefaults: unsupported } : {}),
  };
}
