import {
  ErrorCode,
  HOST_IS_LITTLE_ENDIAN,
  ModelgateError,
  contentsToTypedArray,
  decodeTensor,
  int64ToBigInt,
  isTensorDatatype,
  normalizeShape,
} from '@modelgate/contracts';
import { type TensorDeclaration, type WorkerTensor } from '../model-loading/onnx-session.adapter.js';
import {
  type OipInferParameter as InferParameterMessage,
  type OipInferRequest as ModelInferRequestMessage,
} from '@modelgate/contracts';

/** A ModelInfer request checked against the model: every input present, typed and shaped. */
export interface DecodedInferRequest {
  /** Rows along dim 0, the same for every input. */
  rows: number;
  /** The request's tensors by input name. */
  inputs: Record<string, WorkerTensor>;
  /** The outputs the client asked for; undefined means all. */
  outputNames: string[] | undefined;
  /** Triton's `timeout` request parameter, in µs: the request's own time limit; undefined: none. */
  timeoutMicros?: number;
}

/**
 * Validates names, datatypes and shapes against the model's declared inputs and decodes the
 * tensors from `raw_input_contents` (one entry per input, in order) or typed `contents`.
 * Parameters: the request's `timeout` (Triton's, µs) is taken; any other request, input or
 * output parameter (`priority`, `sequence_id`, an output's `classification`...) is refused rather
 * than ignored. Every failure is INVALID_ARGUMENT naming the tensor or parameter.
 */
export function decodeInferRequest(
  request: ModelInferRequestMessage,
  declaredInputs: readonly TensorDeclaration[],
  declaredOutputs: readonly TensorDeclaration[],
): DecodedInferRequest {
  const timeoutMicros = requestTimeoutMicros(request.parameters);
  const raw = request.raw_input_contents ?? [];
  if (raw.length > 0 && raw.length !== request.inputs.length) {
    throw invalid(
      `raw_input_contents has ${raw.length} entries for ${request.inputs.length} inputs; send one per input or none`,
    );
  }
  const declaredByName = new Map(declaredInputs.map((d) => [d.name, d]));
  const inputs: Record<string, WorkerTensor> = {};
  let rows: number | undefined;

  request.inputs.forEach((tensor, index) => {
    const declared = declaredByName.get(tensor.name);
    if (!declared) {
      throw invalid(`unknown input '${tensor.name}'; the model takes ${names(declaredInputs)}`, tensor.name);
    }
    if (inputs[tensor.name]) throw invalid(`input '${tensor.name}' is given twice`, tensor.name);
    refuseParameters(`input '${tensor.name}'`, tensor.parameters, tensor.name);
    if (tensor.datatype !== declared.datatype || !isTensorDatatype(tensor.datatype)) {
      throw invalid(
        `input '${tensor.name}' has datatype ${tensor.datatype || '(empty)'}; the model expects ${declared.datatype}`,
        tensor.name,
      );
    }
    const dims = normalizeShape(tensor.shape, tensor.name);
    checkDims(tensor.name, dims, declared.dims);
    const bytes = raw[index];
    if (bytes !== undefined && hasContents(tensor.contents)) {
      throw invalid(
        `input '${tensor.name}' has contents while the request sends raw_input_contents; send every input one way`,
        tensor.name,
      );
    }
    const data =
      bytes !== undefined
        ? decodeTensor(tensor.datatype, dims, bytes, tensor.name)
        : contentsToTypedArray(tensor.datatype, dims, tensor.contents, tensor.name);
    if (INDEX_INPUTS.has(tensor.name)) refuseNegativeIndices(tensor.name, data);
    const tensorRows = dims[0] ?? 1;
    if (rows !== undefined && tensorRows !== rows) {
      throw invalid(
        `input '${tensor.name}' has ${tensorRows} rows but other inputs have ${rows}`,
        tensor.name,
      );
    }
    rows = tensorRows;
    inputs[tensor.name] = { datatype: tensor.datatype, dims, data: data as WorkerTensor['data'] };
  });

  const missing = declaredInputs.filter((d) => !inputs[d.name]).map((d) => d.name);
  if (missing.length > 0) {
    throw invalid(
      `missing input${missing.length > 1 ? 's' : ''} ${missing.map((m) => `'${m}'`).join(', ')}`,
      missing[0],
    );
  }
  if (rows === undefined || rows < 1) throw invalid('the request has no rows');

  return {
    rows,
    inputs,
    outputNames: requestedOutputs(request, declaredOutputs),
    ...(timeoutMicros !== undefined ? { timeoutMicros } : {}),
  };
}

/**
 * Inputs that index an embedding table in Hugging Face exports. A negative index is never a token,
 * segment or position, and onnxruntime's Gather counts it from the table's end: a wrong answer, not
 * an error. (An index past the end fails the run; the runner answers that INVALID_ARGUMENT too.)
 */
const INDEX_INPUTS = new Set(['input_ids', 'token_type_ids', 'position_ids']);

function refuseNegativeIndices(name: string, data: unknown): void {
  if (!ArrayBuffer.isView(data)) return; // BYTES: no ids to check
  // INT64 ids (the usual case): read each element's sign from its high 32-bit word, so no element
  // becomes a BigInt. Only a negative one is looked at again, for the message.
  if (data instanceof BigInt64Array) {
    const words = new Int32Array(data.buffer, data.byteOffset, data.length * 2);
    for (let i = HIGH_WORD; i < words.length; i += 2) {
      if ((words[i] ?? 0) < 0)
        throw negativeIndex(name, data[(i - HIGH_WORD) / 2] ?? -1n, (i - HIGH_WORD) / 2);
    }
    return;
  }
  const values = data as unknown as ArrayLike<number | bigint>;
  for (let i = 0; i < values.length; i++) {
    const value = values[i] ?? 0;
    if (value < 0) throw negativeIndex(name, value, i);
  }
}

/** Where an int64's sign bit lies among the two 32-bit words of its element. */
const HIGH_WORD = HOST_IS_LITTLE_ENDIAN ? 1 : 0;

function negativeIndex(name: string, value: number | bigint, at: number): ModelgateError {
  return invalid(
    `input '${name}' has ${String(value)} at element ${at}: ids index a table and must be 0 or more`,
    name,
  );
}

function checkDims(name: string, dims: readonly number[], declared: readonly number[]): void {
  if (dims.length !== declared.length) {
    throw invalid(
      `input '${name}' has shape [${dims.join(', ')}]; the model expects rank ${declared.length} ([${declared.join(', ')}])`,
      name,
    );
  }
  declared.forEach((want, axis) => {
    if (want >= 0 && dims[axis] !== want) {
      throw invalid(
        `input '${name}' has shape [${dims.join(', ')}]; dim ${axis} must be ${want} ([${declared.join(', ')}])`,
        name,
      );
    }
  });
}

function requestedOutputs(
  request: ModelInferRequestMessage,
  declaredOutputs: readonly TensorDeclaration[],
): string[] | undefined {
  const requested = request.outputs ?? [];
  if (requested.length === 0) return undefined;
  const known = new Set(declaredOutputs.map((d) => d.name));
  for (const output of requested) {
    if (!known.has(output.name)) {
      throw invalid(`unknown output '${output.name}'; the model has ${names(declaredOutputs)}`, output.name);
    }
    refuseParameters(`output '${output.name}'`, output.parameters, output.name);
  }
  return [...new Set(requested.map((o) => o.name))];
}

/** The request's `timeout` (a positive integer, µs); any other request parameter is refused. */
function requestTimeoutMicros(
  parameters: Record<string, InferParameterMessage> | undefined,
): number | undefined {
  const { timeout, ...others } = parameters ?? {};
  const unknown = Object.keys(others);
  if (unknown.length > 0) {
    throw invalid(
      `request parameter${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `'${k}'`).join(', ')} ` +
        `${unknown.length > 1 ? 'are' : 'is'} not taken; the only one is 'timeout' (µs, int64_param)`,
      unknown[0],
    );
  }
  if (timeout === undefined) return undefined;
  const value = timeout.int64_param ?? timeout.uint64_param;
  const micros = value === undefined ? NaN : Number(int64ToBigInt(value));
  if (!Number.isSafeInteger(micros) || micros < 1) {
    throw invalid("request parameter 'timeout' must be a positive int64_param, in microseconds", 'timeout');
  }
  return micros;
}

/** Refuses any parameter on a tensor: none is taken (Triton's classification extension is not served). */
function refuseParameters(
  what: string,
  parameters: Record<string, InferParameterMessage> | undefined,
  field: string,
): void {
  const keys = Object.keys(parameters ?? {});
  if (keys.length === 0) return;
  throw invalid(`${what}: parameters are not taken (got ${keys.map((k) => `'${k}'`).join(', ')})`, field);
}

/** Whether typed `contents` carry any element. */
function hasContents(contents: Record<string, unknown[]> | null | undefined): boolean {
  return Object.values(contents ?? {}).some((values) => Array.isArray(values) && values.length > 0);
}

function names(declarations: readonly TensorDeclaration[]): string {
  return declarations.map((d) => `'${d.name}'`).join(', ');
}

function invalid(message: string, field?: string): ModelgateError {
  return new ModelgateError(ErrorCode.INVALID_ARGUMENT, message, field ? { field } : {});
}
