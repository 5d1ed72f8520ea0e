/**
 * A KServe v2 / Triton gRPC client that knows nothing of our .proto: it writes and reads
 * GRPCInferenceService messages by the field numbers of the public specifications (KServe's
 * grpc_predict_v2.proto; Triton's grpc_service.proto for ModelStreamInfer), so a passing call
 * proves wire compatibility of the gateway's gRPC face, not self-consistency.
 */
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';

const SERVICE = '/inference.GRPCInferenceService';

/** protobufjs yields int64 as a Long-like {low, high} or a number. */
function int64ToNumber(value: number | { low: number; high: number }): number {
  return typeof value === 'number' ? value : value.high * 2 ** 32 + (value.low >>> 0);
}

type Value = number | Uint8Array;
type Fields = Map<number, Value[]>;

function readFields(bytes: Uint8Array): Fields {
  const reader = protobuf.Reader.create(bytes);
  const fields: Fields = new Map();
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const field = tag >>> 3;
    const wire = tag & 7;
    const values = fields.get(field) ?? [];
    if (wire === 0) values.push(int64ToNumber(reader.int64()));
    else if (wire === 1) values.push(reader.double());
    else if (wire === 2) values.push(reader.bytes());
    else reader.skipType(wire);
    fields.set(field, values);
  }
  return fields;
}

const text = (value: Value | undefined): string =>
  value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : '';

function packedInt64(value: Value | undefined): number[] {
  if (!(value instanceof Uint8Array)) return [];
  const reader = protobuf.Reader.create(value);
  const out: number[] = [];
  while (reader.pos < reader.len) out.push(int64ToNumber(reader.int64()));
  return out;
}

/** A parameter value: bool_param (1), int64_param (2), string_param (3), double_param (4). */
export type Parameter = boolean | number | string;

function writeParameters(
  writer: protobuf.Writer,
  field: number,
  parameters: Record<string, Parameter>,
): void {
  for (const [key, value] of Object.entries(parameters)) {
    const parameter = protobuf.Writer.create();
    if (typeof value === 'boolean') parameter.uint32((1 << 3) | 0).bool(value);
    else if (typeof value === 'number' && Number.isInteger(value))
      parameter.uint32((2 << 3) | 0).int64(value);
    else if (typeof value === 'number') parameter.uint32((4 << 3) | 1).double(value);
    else parameter.uint32((3 << 3) | 2).string(value);
    const entry = protobuf.Writer.create();
    entry.uint32((1 << 3) | 2).string(key);
    entry.uint32((2 << 3) | 2).bytes(parameter.finish());
    writer.uint32((field << 3) | 2).bytes(entry.finish());
  }
}

function readParameters(values: Value[] | undefined): Record<string, Parameter> {
  const parameters: Record<string, Parameter> = {};
  for (const entry of values ?? []) {
    const fields = readFields(entry as Uint8Array);
    const value = readFields((fields.get(2)?.[0] as Uint8Array | undefined) ?? new Uint8Array());
    const key = text(fields.get(1)?.[0]);
    if (value.has(1)) parameters[key] = value.get(1)?.[0] === 1;
    else if (value.has(2)) parameters[key] = value.get(2)?.[0] as number;
    else if (value.has(3)) parameters[key] = text(value.get(3)?.[0]);
    else if (value.has(4)) parameters[key] = value.get(4)?.[0] as number;
  }
  return parameters;
}

/** BYTES elements in the raw form: each a 4-byte little-endian length, then its bytes. */
export function rawBytes(elements: readonly (string | Uint8Array)[]): Uint8Array {
  const parts = elements.map((element) =>
    typeof element === 'string' ? Buffer.from(element) : Buffer.from(element),
  );
  return Buffer.concat(
    parts.flatMap((part) => {
      const length = Buffer.alloc(4);
      length.writeUInt32LE(part.byteLength);
      return [length, part];
    }),
  );
}

/** The elements of a raw BYTES tensor. */
export function readRawBytes(raw: Uint8Array): string[] {
  const buffer = Buffer.from(raw);
  const out: string[] = [];
  for (let at = 0; at < buffer.byteLength;) {
    const length = buffer.readUInt32LE(at);
    out.push(buffer.subarray(at + 4, at + 4 + length).toString('utf8'));
    at += 4 + length;
  }
  return out;
}

/** One input: raw bytes (raw_input_contents) or BYTES strings in contents.bytes_contents (8). */
export interface WireInput {
  name: string;
  datatype: string;
  shape: number[];
  raw?: Uint8Array;
  bytesContents?: string[];
}

export interface WireRequest {
  model: string;
  version?: string;
  id?: string;
  parameters?: Record<string, Parameter>;
  inputs: WireInput[];
}

export interface WireResponse {
  modelName: string;
  modelVersion: string;
  id: string;
  parameters: Record<string, Parameter>;
  outputs: { name: string; datatype: string; shape: number[] }[];
  raw: Uint8Array[];
}

/** ModelInferRequest: model_name 1, model_version 2, id 3, parameters 4, inputs 5, raw_input_contents 7. */
function encodeRequest(request: WireRequest): Uint8Array {
  const writer = protobuf.Writer.create();
  writer.uint32((1 << 3) | 2).string(request.model);
  if (request.version !== undefined) writer.uint32((2 << 3) | 2).string(request.version);
  if (request.id !== undefined) writer.uint32((3 << 3) | 2).string(request.id);
  writeParameters(writer, 4, request.parameters ?? {});
  for (const input of request.inputs) {
    const tensor = protobuf.Writer.create();
    tensor.uint32((1 << 3) | 2).string(input.name);
    tensor.uint32((2 << 3) | 2).string(input.datatype);
    tensor.uint32((3 << 3) | 2).fork();
    for (const dim of input.shape) tensor.int64(dim);
    tensor.ldelim();
    if (input.bytesContents !== undefined) {
      const contents = protobuf.Writer.create();
      for (const element of input.bytesContents) contents.uint32((8 << 3) | 2).bytes(Buffer.from(element));
      tensor.uint32((5 << 3) | 2).bytes(contents.finish());
    }
    writer.uint32((5 << 3) | 2).bytes(tensor.finish());
  }
  for (const input of request.inputs)
    if (input.raw !== undefined) writer.uint32((7 << 3) | 2).bytes(input.raw);
  return writer.finish();
}

/** ModelInferResponse: model_name 1, model_version 2, id 3, parameters 4, outputs 5, raw_output_contents 6. */
function decodeResponse(bytes: Uint8Array): WireResponse {
  const fields = readFields(bytes);
  return {
    modelName: text(fields.get(1)?.[0]),
    modelVersion: text(fields.get(2)?.[0]),
    id: text(fields.get(3)?.[0]),
    parameters: readParameters(fields.get(4)),
    outputs: (fields.get(5) ?? []).map((output) => {
      const tensor = readFields(output as Uint8Array);
      return {
        name: text(tensor.get(1)?.[0]),
        datatype: text(tensor.get(2)?.[0]),
        shape: packedInt64(tensor.get(3)?.[0]),
      };
    }),
    raw: (fields.get(6) ?? []) as Uint8Array[],
  };
}

const identity = {
  serialize: (message: Uint8Array) => Buffer.from(message),
  deserialize: (buffer: Buffer) => new Uint8Array(buffer),
};

export class KserveWireClient {
  private readonly client: grpc.Client;

  constructor(address: string) {
    this.client = new grpc.Client(address, grpc.credentials.createInsecure());
  }

  private unary(method: string, request: Uint8Array, metadata = new grpc.Metadata()): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      this.client.makeUnaryRequest<Uint8Array, Uint8Array>(
        `${SERVICE}/${method}`,
        identity.serialize,
        identity.deserialize,
        request,
        metadata,
        (error, response) =>
          error || !response ? reject(error ?? new Error('no response')) : resolve(response),
      );
    });
  }

  /** ServerReady → ready (1). */
  async serverReady(): Promise<boolean> {
    return readFields(await this.unary('ServerReady', new Uint8Array())).get(1)?.[0] === 1;
  }

  /** ModelReady: name 1, version 2 → ready 1. */
  async modelReady(name: string): Promise<boolean> {
    const request = protobuf.Writer.create()
      .uint32((1 << 3) | 2)
      .string(name)
      .finish();
    return readFields(await this.unary('ModelReady', request)).get(1)?.[0] === 1;
  }

  /** ModelMetadata: name 1 → name 1, versions 2, platform 3, inputs 4, outputs 5 (name 1, datatype 2, shape 3). */
  async modelMetadata(name: string) {
    const request = protobuf.Writer.create()
      .uint32((1 << 3) | 2)
      .string(name)
      .finish();
    const fields = readFields(await this.unary('ModelMetadata', request));
    const tensor = (value: Value) => {
      const parts = readFields(value as Uint8Array);
      return {
        name: text(parts.get(1)?.[0]),
        datatype: text(parts.get(2)?.[0]),
        shape: packedInt64(parts.get(3)?.[0]),
      };
    };
    return {
      name: text(fields.get(1)?.[0]),
      versions: (fields.get(2) ?? []).map(text),
      platform: text(fields.get(3)?.[0]),
      inputs: (fields.get(4) ?? []).map(tensor),
      outputs: (fields.get(5) ?? []).map(tensor),
    };
  }

  async modelInfer(request: WireRequest, metadata?: grpc.Metadata): Promise<WireResponse> {
    return decodeResponse(await this.unary('ModelInfer', encodeRequest(request), metadata));
  }

  /**
   * ModelStreamInfer: writes `requests`, ends the stream, and collects every
   * ModelStreamInferResponse (error_message 1, infer_response 2) until the server ends it.
   */
  modelStreamInfer(requests: readonly WireRequest[]): Promise<({ error: string } | WireResponse)[]> {
    return new Promise((resolve, reject) => {
      const responses: ({ error: string } | WireResponse)[] = [];
      const call = this.client.makeBidiStreamRequest<Uint8Array, Uint8Array>(
        `${SERVICE}/ModelStreamInfer`,
        identity.serialize,
        identity.deserialize,
      );
      call.on('data', (bytes: Uint8Array) => {
        const fields = readFields(bytes);
        const error = text(fields.get(1)?.[0]);
        const inner = fields.get(2)?.[0];
        responses.push(
          error !== '' ? { error } : decodeResponse((inner as Uint8Array | undefined) ?? new Uint8Array()),
        );
      });
      call.on('error', reject);
      call.on('end', () => resolve(responses));
      for (const request of requests) call.write(encodeRequest(request));
      call.end();
    });
  }

  close(): void {
    this.client.close();
  }
}
