import {
  describeTensors,
  hasPastInputs,
  isGenerativeTask,
  type ModelTask,
  type TensorMetadata,
  LAST_HIDDEN_STATE,
} from '@modelgate/contracts';
import { checkDecoderIo } from './decoder-export.js';
import { checkImageClassificationIo } from './image-io.js';
import { checkRankingOutputs } from './ranking-outputs.js';
import { checkSpanOutputs } from './span-outputs.js';
import { checkTokenOutputs } from './token-outputs.js';

/** Token tensors the gateway's tokenization can feed a model. */
const TOKEN_INPUTS = ['input_ids', 'attention_mask', 'token_type_ids'] as const;

/**
 * What keeps a model from serving `task`, as sentences a person can act on; empty when it fits.
 * Text tasks need INT64 `input_ids` and `attention_mask` (and no inputs tokenization cannot
 * make); text-classification a 2-D FP32 `logits`; feature-extraction a 3-D FP32
 * `last_hidden_state` or a 2-D FP32 pooled output; question-answering FP32 `start_logits` and
 * `end_logits` [batch, sequence] (span-outputs.ts); text-ranking FP32 `logits` [batch, 1]
 * (ranking-outputs.ts); token-classification FP32 `logits` [batch, sequence, labels]
 * (token-outputs.ts); text-generation a decoder export with past (decoder-export.ts), which no
 * other task takes but image-to-text, whose decoder (the artifact) also takes
 * `encoder_hidden_states` (its encoder: vision-encoder-decoder.ts); image-classification FP32
 * `pixel_values` in and `logits` out (image-io.ts). raw takes anything.
 */
export function checkIoForTask(
  task: ModelTask,
  inputs: readonly TensorMetadata[],
  outputs: readonly TensorMetadata[],
): string[] {
  if (task === 'raw') return [];
  if (isGenerativeTask(task)) return checkDecoderIo(inputs, outputs, task);
  if (hasPastInputs(inputs)) {
    return [
      `task ${task} cannot serve a decoder export with a KV cache (past_key_values.N inputs, present.N ` +
        `outputs): register it as text-generation`,
    ];
  }
  if (task === 'image-classification') return checkImageClassificationIo(inputs, outputs);
  const problems: string[] = [];
  for (const name of ['input_ids', 'attention_mask'] as const) {
    const input = inputs.find((candidate) => candidate.name === name);
    if (input === undefined) {
      problems.push(
        `task ${task} needs an input named ${name}; the model has inputs ${describeTensors(inputs)}`,
      );
    } else if (input.datatype !== 'INT64') {
      problems.push(`task ${task} needs ${name} to be INT64; the model declares ${input.datatype}`);
    }
  }
  const unfeedable = inputs.filter((input) => !(TOKEN_INPUTS as readonly string[]).includes(input.name));
  if (unfeedable.length > 0) {
    problems.push(
      `task ${task} feeds only ${TOKEN_INPUTS.join(', ')}; the model also needs ${describeTensors(unfeedable)} (register it as raw)`,
    );
  }
  if (task === 'text-classification') {
    const logits = outputs.find((output) => output.name === 'logits');
    if (logits === undefined || logits.datatype !== 'FP32' || logits.dims.length !== 2) {
      problems.push(
        `task text-classification needs a 2-D FP32 output named logits; the model has outputs ${describeTensors(outputs)}`,
      );
    }
  } else if (task === 'question-answering') {
    problems.push(...checkSpanOutputs(outputs));
  } else if (task === 'text-ranking') {
    problems.push(...checkRankingOutputs(outputs));
  } else if (task === 'token-classification') {
    problems.push(...checkTokenOutputs(outputs));
  } else {
    const hidden = outputs.find((output) => output.name === LAST_HIDDEN_STATE);
    const hiddenFits = hidden !== undefined && hidden.datatype === 'FP32' && hidden.dims.length === 3;
    const pooled = outputs.some((output) => output.datatype === 'FP32' && output.dims.length === 2);
    if (!hiddenFits && !pooled) {
      problems.push(
        `task feature-extraction needs a 3-D FP32 output named last_hidden_state or a 2-D FP32 pooled output; the model has outputs ${describeTensors(outputs)}`,
      );
    }
  }
  return problems;
}

/** A problem when `labels` do not match the classes `logits` declares; undefined when they fit or cannot be told. */
export function checkLabels(
  labels: readonly string[] | null,
  outputs: readonly TensorMetadata[],
): string | undefined {
  const classes = outputs.find((output) => output.name === 'logits')?.dims[1];
  if (labels === null || classes === undefined || classes < 0 || labels.length === classes) return undefined;
  return `the model has ${labels.length} labels but logits has ${classes} classes`;
}

/** A problem when a label names two classes (config.json's id2label may repeat one); undefined when none does. */
export function repeatedLabelProblem(labels: readonly string[] | null): string | undefined {
  if (labels === null) return undefined;
  const at = labels.findIndex((label, index) => labels.indexOf(label) !== index);
  if (at < 0) return undefined;
  return (
    `label '${labels[at]}' names classes ${labels.indexOf(labels[at]!)} and ${at} (config.json's id2label): ` +
    'give the model labels that name each class once'
  );
}

/** Class labels from a Hugging Face config.json's id2label ({"0": "NEGATIVE", ...}); undefined unless ids run 0..n-1. */
export function labelsFromHfConfig(config: unknown): string[] | undefined {
  if (typeof config !== 'object' || config === null) return undefined;
  const id2label = (config as { id2label?: unknown }).id2label;
  if (typeof id2label !== 'object' || id2label === null) return undefined;
  const entries = Object.entries(id2label as Record<string, unknown>);
  const labels: string[] = [];
  for (const [key, value] of entries) {
    const index = Number(key);
    if (!Number.isInteger(index) || index < 0 || index >= entries.length) return undefined;
    if (typeof value !== 'string' || value === '') return undefined;
    labels[index] = value;
  }
  return labels.length === entries.length && labels.every((label) => label !== undefined)
    ? labels
    : undefined;
}
