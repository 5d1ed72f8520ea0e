// Validation of raw-tensor bodies (the `raw` task and the KServe v2 REST passthrough):
// `{id?, parameters?: {timeout?}, inputs: [{name, datatype, shape, data}], outputs?: [{name}]}`.
import {
  ErrorCode,
  ModelgateError,
  TENSOR_DATATYPES,
  type TensorData,
  type TensorDatatype,
  type TensorMetadata,
  contentsToTypedArray,
  elementCount,
  float32ArrayToFp16,
  formatShape,
  validationError,
} from '@modelgate/contracts';
import { z } from 'zod';
import { requestIssues } from './request-issues.js';

/** A decoded tensor: name, datatype, concrete shape and typed elements. */
export interface NamedTensor<D extends TensorDatatype = TensorDatatype> {
  name: string;
  datatype: D;
  shape: number[];
  data: TensorData<D>;
}

const tensorSchema = z.strictObject({
  name: z.string().min(1, 'must not be empty').describe('Input name as the model declares it.'),
  datatype: z
    .enum(TENSOR_DATATYPES, { error: `must be one of ${TENSOR_DATATYPES.join(', ')}` })
    .describe('Open Inference Protocol datatype, e.g. INT64 or FP32.'),
  shape: z.array(z.int().min(0, 'must be a non-negative integer')).describe('Concrete dimensions.'),
  data: z
    .array(z.unknown())
    .describe('Elements in row-major order, flat or nested (strings for BYTES, booleans for BOOL).'),
  parameters: z
    .strictObject({})
    .optional()
    .describe(
      "Tensor parameters: none is taken (Triton's binary_data_size belongs to its binary tensor extension, which is not served).",
    ),
});

/** Triton's binary tensor extension, which this JSON API does not serve: only `false` is taken. */
const jsonOnly = () =>
  z
    .literal(false, {
      error: "binary tensor data (Triton's binary extension) is not served; send false or leave it out",
    })
    .optional();

/** The JSON body of a raw inference request (KServe v2 REST). */
export const rawInferRequestSchema = z.strictObject({
  id: z.string().optional().describe('Request id, echoed back'),
  parameters: z
    .strictObject({
      timeout: z
        .number()
        .int()
        .min(1)
        .optional()
        .describe(
          "Triton's request timeout, in microseconds: the request's deadline in place of the model's batching.defaultTimeoutMs",
        ),
      binary_data_output: jsonOnly().describe('Only false: outputs are JSON'),
    })
    .optional()
    .describe('Request parameters (Triton names)'),
  inputs: z
    .array(tensorSchema)
    .min(1, 'must hold at least one tensor')
    .describe('Input tensors: name, datatype, shape and data in row-major order'),
  outputs: z
    .array(
      z.strictObject({
        name: z.string().min(1).describe('Name of an output tensor to return.'),
        parameters: z
          .strictObject({ binary_data: jsonOnly().describe('Only false: the output is JSON') })
          .optional()
          .describe('Output parameters (Triton names).'),
      }),
    )
    .optional()
    .describe('Output names to return; all when absent'),
});

/** A validated raw inference request. */
export interface RawInferRequest {
  id?: string;
  inputs: NamedTensor[];
  /** Output names the client asked for; undefined means all. */
  outputs?: string[];
  /** The request's own deadline, in ms from its arrival (Triton's `timeout` parameter); undefined: the model's. */
  timeoutMs?: number;
}

/** Options of {@link parseRawInferRequest}. */
export interface ParseRawInferRequestOptions {
  /** The model's declared inputs; when given, names, datatypes and fixed dims are checked against them. */
  inputs?: readonly TensorMetadata[];
  /** Most elements over all input tensors. @defaultValue 16777216 */
  maxElements?: number;
}

const DEFAULT_MAX_ELEMENTS = 16 * 1024 * 1024;
const CONTENTS_FIELD = {
  BOOL: 'bool_contents',
  UINT8: 'uint_contents',
  UINT16: 'uint_contents',
  UINT32: 'uint_contents',
  UINT64: 'uint64_contents',
  INT8: 'int_contents',
  INT16: 'int_contents',
  INT32: 'int_contents',
  INT64: 'int64_contents',
  FP16: undefined,
  FP32: 'fp32_contents',
  FP64: 'fp64_contents',
  BYTES: undefined,
} as const satisfies Record<TensorDatatype, string | undefined>;

function invalid(field: string, message: string): ModelgateError {
  return new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${field}: ${message}`, { field });
}

/** Row-major elements of a flat or nested JSON array; nesting deeper than the shape is an error. */
function flattenData(data: readonly unknown[], depth: number, field: string): unknown[] {
  const out: unknown[] = [];
  const walk = (value: readonly unknown[], level: number): void => {
    for (const element of value) {
      if (!Array.isArray(element)) out.push(element);
      else if (level >= depth)
        throw invalid(field, `data is nested deeper than the shape's ${depth} dimensions`);
      else walk(element, level + 1);
    }
  };
  walk(data, 1);
  return out;
}

function toTypedArray(
  datatype: TensorDatatype,
  shape: number[],
  values: unknown[],
  field: string,
): TensorData {
  const count = elementCount(shape, field);
  if (values.length !== count) {
    throw invalid(field, `shape ${formatShape(shape)} needs ${count} elements, got ${values.length}`);
  }
  if (datatype === 'BYTES') {
    const encoder = new TextEncoder();
    return values.map((value, i) => {
      if (typeof value !== 'string') throw invalid(field, `BYTES element ${i} is not a string`);
      return encoder.encode(value);
    });
  }
  if (datatype === 'FP16' || datatype === 'FP32') refuseBeyondRange(datatype, values, field);
  if (datatype === 'FP16') {
    if (!values.every((value) => typeof value === 'number'))
      throw invalid(field, 'FP16 elements must be numbers');
    return float32ArrayToFp16(values);
  }
  return contentsToTypedArray(datatype, shape, { [CONTENTS_FIELD[datatype]]: values }, field);
}

/** The smallest magnitude each float type rounds to infinity. */
const OVERFLOW = { FP16: 65520, FP32: 2 ** 128 * (1 - 2 ** -25) } as const;

/** A JSON number past a float type's range would become Infinity in silence: refused instead. */
function refuseBeyondRange(datatype: 'FP16' | 'FP32', values: readonly unknown[], field: string): void {
  const limit = OVERFLOW[datatype];
  const at = values.findIndex((value) => typeof value === 'number' && Math.abs(value) >= limit);
  if (at >= 0) {
    throw invalid(field, `element ${at} (${String(values[at])}) is beyond the ${datatype} range`);
  }
}

function checkDeclared(
  tensor: Pick<NamedTensor, 'name' | 'datatype' | 'shape'>,
  declared: TensorMetadata | undefined,
  field: string,
): void {
  if (declared === undefined) throw invalid(field, `the model has no input named '${tensor.name}'`);
  if (declared.datatype !== tensor.datatype) {
    throw invalid(field, `'${tensor.name}' must be ${declared.datatype}, got ${tensor.datatype}`);
  }
  const fits =
    declared.dims.length === tensor.shape.length &&
    declared.dims.every((dim, i) => dim === -1 || dim === tensor.shape[i]);
  if (!fits) {
    throw invalid(
      field,
      `'${tensor.name}' has shape ${formatShape(tensor.shape)}, the model takes ${formatShape(declared.dims)} (-1: any)`,
    );
  }
}

/**
 * Validates a raw inference body and decodes its tensors into typed arrays. Throws
 * ModelgateError(INVALID_ARGUMENT) naming the field (`inputs[1].data`, ...); PAYLOAD_TOO_LARGE
 * past maxElements.
 */
export function parseRawInferRequest(
  body: unknown,
  options: ParseRawInferRequestOptions = {},
): RawInferRequest {
  const parsed = rawInferRequestSchema.safeParse(body);
  if (!parsed.success) throw validationError('request body', requestIssues(parsed.error));
  const { id, inputs, outputs, parameters } = parsed.data;
  const maxElements = options.maxElements ?? DEFAULT_MAX_ELEMENTS;
  const declared = options.inputs === undefined ? undefined : new Map(options.inputs.map((i) => [i.name, i]));

  let elements = 0;
  const seen = new Set<string>();
  const tensors = inputs.map((input, index): NamedTensor => {
    const field = `inputs[${index}]`;
    if (seen.has(input.name)) throw invalid(`${field}.name`, `'${input.name}' is given twice`);
    seen.add(input.name);
    elements += elementCount(input.shape, `${field}.shape`);
    if (elements > maxElements) {
      throw new ModelgateError(
        ErrorCode.PAYLOAD_TOO_LARGE,
        `the inputs hold more than ${maxElements} elements`,
        { field: 'inputs' },
      );
    }
    if (declared !== undefined) checkDeclared(input, declared.get(input.name), field);
    const values = flattenData(input.data, Math.max(input.shape.length, 1), `${field}.data`);
    const data = toTypedArray(input.datatype, input.shape, values, `${field}.data`);
    return { name: input.name, datatype: input.datatype, shape: input.shape, data };
  });
  if (declared !== undefined) {
    const missing = [...declared.keys()].filter((name) => !seen.has(name));
    if (missing.length > 0) throw invalid('inputs', `missing model input(s) ${missing.join(', ')}`);
  }
  outputs?.forEach((output, index) => {
    if (outputs.findIndex((other) => other.name === output.name) !== index) {
      throw invalid(`outputs[${index}].name`, `'${output.name}' is asked for twice`);
    }
  });
  return {
    ...(id === undefined ? {} : { id }),
    inputs: tensors,
    ...(outputs === undefined ? {} : { outputs: outputs.map((output) => output.name) }),
    ...(parameters?.timeout === undefined ? {} : { timeoutMs: parameters.timeout / 1000 }),
  };
}
