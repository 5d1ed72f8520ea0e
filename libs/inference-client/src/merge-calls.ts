/**
 * Several calls' rows as one ModelInfer and back (pure). Calls merge when they go to the same
 * model and workers and their tensors stack along dim 0: same input names and datatypes, the same
 * non-batch dims except the token axis of sequence inputs, which are right-padded with zeros to
 * the longest call (their attention mask hides the padding, and a modelgate worker cuts each row
 * back to its real length before batching). Each call then gets its own rows of every output,
 * sequence outputs cut back to its own length: what it would have got alone.
 */
import {
  type BatchLayout,
  type NumericArray,
  type TensorData,
  concatBatch,
  padSequenceAxis,
  sequenceAxisOf,
  splitBatchOutput,
} from '@modelgate/batching';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type InferInput, type InferOutput } from './infer-codec.js';

/** How a call's rows may merge with other calls' (given by the caller, who knows the model). */
export interface RowLayout {
  /**
   * The most rows a merged call may hold (the gateway gives the model's `maxBatchSize` ×
   * `instances`: one batch per session, within its `maxQueueSize`). A call with this many rows
   * or more runs alone.
   */
  maxRows: number;
  /**
   * Inputs [rows, tokens] whose token axis may be right-padded with zeros, among them an
   * `attention_mask`; empty when padding would change the answer (calls then merge only at equal
   * dims). @defaultValue []
   */
  sequenceInputs?: readonly string[];
  /** Outputs with a token axis (its index), cut back to each call's own length. @defaultValue {} */
  sequenceOutputs?: Readonly<Record<string, number>>;
}

/**
 * The layout of a model's calls from what its spec declares: token inputs (an `attention_mask`
 * among them) pad when the declared outputs say where each output's token axis is; otherwise calls
 * merge only at equal dims. A model with a BYTES output does not merge (its answers do not split).
 */
export function modelRowLayout(
  maxRows: number,
  inputNames: readonly string[],
  outputs: readonly { name: string; datatype?: string; dims: readonly number[] }[],
): RowLayout {
  if (outputs.some((output) => output.datatype !== undefined && !stacks(output.datatype))) {
    return { maxRows: 1 };
  }
  if (!inputNames.includes('attention_mask') || outputs.length === 0) return { maxRows };
  const sequenceOutputs: Record<string, number> = {};
  for (const output of outputs) {
    const axis = sequenceAxisOf(output.dims);
    if (axis !== undefined) sequenceOutputs[output.name] = axis;
  }
  return { maxRows, sequenceInputs: [...inputNames], sequenceOutputs };
}

/** What a call contributes to a merge. */
export interface MergeMember {
  inputs: readonly InferInput[];
  /** Rows, dim 0 of every input. */
  rows: number;
  /** Its token length (dim 1 of its sequence inputs), when it has sequence inputs. */
  tokens?: number;
  /** The names of its sequence inputs (the only ones padded). @defaultValue [] */
  sequenceInputs?: readonly string[];
}

/** BYTES tensors (lists of strings) do not stack; every fixed-width datatype does. */
function stacks(datatype: string): boolean {
  return datatype !== 'BYTES';
}

/**
 * The member a call makes, with the key calls must share to merge (`prefix`: model and route,
 * chosen by the caller); undefined when the call cannot merge (a datatype that does not stack,
 * inputs that disagree on rows, no rows).
 */
export function mergeMember(
  prefix: string,
  inputs: readonly InferInput[],
  layout: RowLayout,
): { key: string; member: MergeMember } | undefined {
  const rows = inputs[0]?.dims[0];
  if (rows === undefined || rows < 1) return undefined;
  const sequence = new Set(layout.sequenceInputs ?? []);
  let tokens: number | undefined;
  const padded: string[] = [];
  const parts = [prefix];
  for (const input of inputs) {
    if (!stacks(input.datatype) || input.dims[0] !== rows) return undefined;
    if (sequence.has(input.name)) {
      if (input.dims.length !== 2 || (tokens !== undefined && input.dims[1] !== tokens)) return undefined;
      tokens = input.dims[1];
      padded.push(input.name);
      parts.push(`${input.name}:${input.datatype}:seq`);
    } else {
      parts.push(`${input.name}:${input.datatype}:${input.dims.slice(1).join('x')}`);
    }
  }
  // Lengths within a factor of two share a key (up to 8 tokens, one key): a short call never waits
  // for, nor is padded to, rows over twice its length, which the worker's batcher may run later.
  if (tokens !== undefined) parts.push(`len<=${2 ** Math.max(3, Math.ceil(Math.log2(Math.max(1, tokens))))}`);
  const member = { inputs, rows, ...(tokens === undefined ? {} : { tokens, sequenceInputs: padded }) };
  return { key: parts.join('|'), member };
}

/** The merged inputs of `members` (sharing a key), and where each member's rows sit. */
export function mergeInputs(members: readonly MergeMember[]): { inputs: InferInput[]; layout: BatchLayout } {
  const width = members.reduce((longest, member) => Math.max(longest, member.tokens ?? 0), 0);
  const first = members[0];
  if (first === undefined) throw new Error('no calls to merge');
  const inputs = first.inputs.map((template, index): InferInput => {
    const parts = members.map((member) => {
      const input = member.inputs[index] as InferInput;
      const tensor = { data: input.data as NumericArray, dims: input.dims };
      const pads = member.sequenceInputs?.includes(input.name) ?? false;
      return { [input.name]: pads ? padSequenceAxis(tensor, 1, width, input.name) : tensor };
    });
    const merged = concatBatch(parts).inputs[template.name] as TensorData;
    return {
      name: template.name,
      datatype: template.datatype,
      dims: merged.dims,
      data: merged.data,
    } as InferInput;
  });
  let firstRow = 0;
  const requests = members.map((member) => {
    const placed = {
      firstRow,
      rows: member.rows,
      ...(member.tokens === undefined ? {} : { sequenceLength: member.tokens }),
    };
    firstRow += member.rows;
    return placed;
  });
  return { inputs, layout: { batch: firstRow, requests, ...(width > 0 ? { sequenceLength: width } : {}) } };
}

/**
 * Each member's outputs from the merged call's: its rows, sequence outputs cut back to its own
 * length. Throws INVALID_ARGUMENT when an output does not match the layout.
 */
export function splitOutputs(
  outputs: Readonly<Record<string, InferOutput>>,
  layout: BatchLayout,
  sequenceOutputs: Readonly<Record<string, number>> = {},
): Record<string, InferOutput>[] {
  const split: Record<string, InferOutput>[] = layout.requests.map(() => ({}));
  for (const [name, output] of Object.entries(outputs)) {
    if (!stacks(output.datatype)) {
      throw new ModelgateError(
        ErrorCode.INVALID_ARGUMENT,
        `output '${name}' is BYTES: merged calls cannot split it`,
      );
    }
    const axis = sequenceOutputs[name];
    const parts = splitBatchOutput(output.data as NumericArray, output.dims, layout, {
      name,
      ...(axis === undefined ? {} : { sequenceAxis: axis }),
    });
    parts.forEach((part, index) => {
      (split[index] as Record<string, InferOutput>)[name] = {
        datatype: output.datatype,
        dims: [...part.dims],
        data: part.data,
      } as InferOutput;
    });
  }
  return split;
}
