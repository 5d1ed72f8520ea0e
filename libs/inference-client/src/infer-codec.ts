import {
  ErrorCode,
  ModelgateError,
  type TensorData,
  type TensorDatatype,
  type TensorInput,
  type Int64Like,
  contentsToTypedArray,
  decodeTensor,
  encodeTensor,
  int64ToBigInt,
  isModelgateError,
  isTensorDatatype,
  normalizeShape,
} from '@modelgate/contracts';
import {
  type InferParameterMessage,
  type ModelInferRequestMessage,
  type ModelInferResponseMessage,
} from './infer-messages.js';

/** One input tensor: its elements as the datatype's typed array (BYTES: strings or byte arrays). */
export type InferInput = {
  [D in TensorDatatype]: {
    /** Input name as the model declares it, e.g. `input_ids`. */
    name: string;
    datatype: D;
    /** Concrete dimensions, e.g. `[batch, sequence]`. */
    dims: readonly number[];
    /** Row-major elements; their count must equal the product of `dims`. */
    data: TensorInput<D>;
  };
}[TensorDatatype];

/** One output tensor as the worker returned it, decoded; narrow on `datatype` to type `data`. */
export type InferOutput = {
  [D in TensorDatatype]: { datatype: D; dims: number[]; data: TensorData<D> };
}[TensorDatatype];

/** A response parameter's value, whichever oneof member carried it. */
export type InferParameterValue = boolean | number | string;

/** What the request message is built from. */
export interface InferMessageFields {
  modelName: string;
  modelVersion?: string | undefined;
  id?: string | undefined;
  inputs: readonly InferInput[];
  outputs?: readonly string[] | undefined;
}

/** The decoded parts of a ModelInfer response. */
export interface DecodedInferResponse {
  modelName: string;
  modelVersion: string;
  id: string;
  outputs: Record<string, InferOutput>;
  parameters: Record<string, InferParameterValue>;
}

/**
 * The ModelInfer request for `fields`: tensors as little-endian bytes in `raw_input_contents`
 * (views over the callers' typed arrays where the host allows, no copy). Throws INVALID_ARGUMENT
 * naming the tensor when data and dims disagree.
 */
export function encodeInferRequest(fields: InferMessageFields): ModelInferRequestMessage {
  const inputs: ModelInferRequestMessage['inputs'] = [];
  const raw: Uint8Array[] = [];
  for (const input of fields.inputs) {
    const bytes = encodeTensor<TensorDatatype>(input.datatype, input.dims, input.data, input.name);
    inputs.push({ name: input.name, datatype: input.datatype, shape: [...input.dims] });
    raw.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  }
  return {
    model_name: fields.modelName,
    model_version: fields.modelVersion ?? '',
    id: fields.id ?? '',
    inputs,
    outputs: (fields.outputs ?? []).map((name) => ({ name })),
    raw_input_contents: raw,
  };
}

/**
 * The outputs of a ModelInfer response, decoded from `raw_output_contents` (or, from servers that
 * answer with typed `contents`, from those). A malformed response is the worker's fault, so it
 * throws INTERNAL, not INVALID_ARGUMENT.
 */
export function decodeInferResponse(response: ModelInferResponseMessage): DecodedInferResponse {
  const tensors = response.outputs ?? [];
  const raw = response.raw_output_contents ?? [];
  if (raw.length > 0 && raw.length !== tensors.length) {
    throw malformed(`${tensors.length} outputs but ${raw.length} raw_output_contents`);
  }
  const outputs: Record<string, InferOutput> = {};
  for (const [index, tensor] of tensors.entries()) {
    try {
      const { datatype } = tensor;
      if (!isTensorDatatype(datatype)) throw malformed(`unsupported datatype ${String(datatype)}`);
      const dims = normalizeShape(tensor.shape ?? [], tensor.name);
      const bytes = raw[index];
      const data =
        bytes !== undefined
          ? decodeTensor(datatype, dims, bytes, tensor.name)
          : contentsToTypedArray(datatype, dims, tensor.contents, tensor.name);
      outputs[tensor.name] = { datatype, dims, data } as InferOutput;
    } catch (error) {
      if (isModelgateError(error) && error.code === ErrorCode.INTERNAL) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw malformed(`output '${tensor.name}': ${reason}`, error);
    }
  }
  return {
    modelName: response.model_name ?? '',
    modelVersion: response.model_version ?? '',
    id: response.id ?? '',
    outputs,
    parameters: decodeParameters(response.parameters),
  };
}

/** Where the worker says the time went, from its `queue_time_us` / `compute_time_us` parameters. */
export interface WorkerTimings {
  /** Time the request waited in the worker's batch queue, in ms. */
  queueMs?: number;
  /** Time the batch carrying the request took to run, in ms. */
  computeMs?: number;
}

/** The worker timings a response carries (absent ones left out: a Triton server sends none). */
export function workerTimings(parameters: Readonly<Record<string, InferParameterValue>>): WorkerTimings {
  const timings: WorkerTimings = {};
  const queue = parameters.queue_time_us;
  const compute = parameters.compute_time_us;
  if (typeof queue === 'number' && queue >= 0) timings.queueMs = queue / 1000;
  if (typeof compute === 'number' && compute >= 0) timings.computeMs = compute / 1000;
  return timings;
}

/** A parameters map with each oneof reduced to its value (64-bit integers as numbers). */
export function decodeParameters(
  parameters: Record<string, InferParameterMessage> | null | undefined,
): Record<string, InferParameterValue> {
  const values: Record<string, InferParameterValue> = {};
  for (const [key, parameter] of Object.entries(parameters ?? {})) {
    const value = parameterValue(parameter);
    if (value !== undefined) values[key] = value;
  }
  return values;
}

function parameterValue(parameter: InferParameterMessage): InferParameterValue | undefined {
  switch (parameter.parameter_choice) {
    case 'bool_param':
      return parameter.bool_param ?? undefined;
    case 'string_param':
      return parameter.string_param ?? undefined;
    case 'double_param':
      return parameter.double_param ?? undefined;
    case 'int64_param':
      return int64Number(parameter.int64_param);
    case 'uint64_param':
      return int64Number(parameter.uint64_param);
    default:
      return undefined;
  }
}

function int64Number(value: Int64Like | null | undefined): number | undefined {
  return value === null || value === undefined ? undefined : Number(int64ToBigInt(value));
}

function malformed(reason: string, cause?: unknown): ModelgateError {
  return new ModelgateError(
    ErrorCode.INTERNAL,
    `worker returned a malformed response: ${reason}`,
    {},
    { cause },
  );
}
