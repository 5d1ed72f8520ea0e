// What the gateway's gRPC face (gateway-grpc.ts) reads of a call and writes back: metadata as
// headers, the request id, raw-tensor inputs and Triton's timeout parameter, and the response
// message shape. Pure: no I/O.
import { randomUUID } from 'node:crypto';
import { type Metadata } from '@grpc/grpc-js';
import {
  ErrorCode,
  ModelgateError,
  type OipInferParameter,
  type OipInferRequest,
  type TensorDatatype,
  contentsToTypedArray,
  decodeTensor,
  normalizeShape,
} from '@modelgate/contracts';
import { type InferInput } from '@modelgate/inference-client';
import { parameterValues } from './oip-text.js';

export type Headers = Record<string, string | string[] | undefined>;

/** A response message as proto-loader serializes it. */
export interface InferResponse {
  model_name: string;
  model_version: string;
  id: string;
  parameters?: Record<string, OipInferParameter>;
  outputs: {
    name: string;
    datatype: string;
    shape: number[];
    parameters?: Record<string, OipInferParameter>;
  }[];
  raw_output_contents: Uint8Array[];
}

export const stringParam = (value: string): OipInferParameter => ({
  string_param: value,
  parameter_choice: 'string_param',
});
export const boolParam = (value: boolean): OipInferParameter => ({
  bool_param: value,
  parameter_choice: 'bool_param',
});

/**
 * Characters a status message keeps: a message echoes what the client sent (a model name, an input
 * name), and grpc-message is a trailer, percent-encoded at up to 12 bytes a character; 512 keep
 * it within gRPC's default 8 KiB metadata limit, past which a client fails the call instead.
 */
export const MAX_STATUS_MESSAGE_CHARS = 512;

/** `message` cut to MAX_STATUS_MESSAGE_CHARS characters (code points: never half a pair), `…` last. */
export function clipStatusMessage(message: string): string {
  if (message.length <= MAX_STATUS_MESSAGE_CHARS) return message;
  const chars = Array.from(message);
  return chars.length <= MAX_STATUS_MESSAGE_CHARS
    ? message
    : `${chars.slice(0, MAX_STATUS_MESSAGE_CHARS - 1).join('')}…`;
}

export function headersOf(metadata: Metadata): Headers {
  const headers: Headers = {};
  for (const [key, value] of Object.entries(metadata.getMap())) {
    if (typeof value === 'string') headers[key] = value;
  }
  return headers;
}

export function requestIdOf(headers: Headers): string {
  const given = headers['x-request-id'];
  return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
}

/** Decodes a raw-tensor request's inputs (raw_input_contents or typed contents). */
export function rawInputs(request: OipInferRequest): InferInput[] {
  const raw = request.raw_input_contents ?? [];
  if (raw.length > 0 && raw.length !== request.inputs.length) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `raw_input_contents has ${raw.length} entries for ${request.inputs.length} inputs`,
    );
  }
  return request.inputs.map((input, index) => {
    const dims = normalizeShape(input.shape, input.name);
    const datatype = input.datatype as TensorDatatype;
    const bytes = raw[index];
    const data =
      bytes !== undefined
        ? decodeTensor(datatype, dims, bytes, input.name)
        : contentsToTypedArray(datatype, dims, input.contents as never, input.name);
    return { name: input.name, datatype, dims, data } as InferInput;
  });
}

/** Triton's `timeout` request parameter (µs) as ms; any other request parameter is refused. */
export function rawTimeoutMs(request: OipInferRequest): number | undefined {
  const values = parameterValues(request.parameters);
  for (const key of Object.keys(values)) {
    if (key !== 'timeout') {
      throw new ModelgateError(
        ErrorCode.INVALID_ARGUMENT,
        `parameter '${key}' is not taken by raw-tensor calls (only timeout, µs)`,
        {
          field: key,
        },
      );
    }
  }
  const timeout = values.timeout;
  if (timeout === undefined) return undefined;
  if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout <= 0) {
    throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, 'parameter timeout: a positive integer of µs', {
      field: 'timeout',
    });
  }
  return Math.ceil(timeout / 1000);
}
