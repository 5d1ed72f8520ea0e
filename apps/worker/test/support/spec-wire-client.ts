/**
 * A client that knows nothing of our .proto: it writes and reads Open Inference Protocol
 * messages by the field numbers of the public specification (KServe v2 / Triton
 * grpc_service.proto), so a passing call proves wire compatibility, not self-consistency.
 */
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';

const SERVICE = '/inference.GRPCInferenceService';

/** A decoded message: field number → list of raw values (varint as Long/number, bytes as Uint8Array). */
type Fields = Map<number, (number | Uint8Array)[]>;

function readFields(bytes: Uint8Array): Fields {
  const reader = protobuf.Reader.create(bytes);
  const fields: Fields = new Map();
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const field = tag >>> 3;
    const wire = tag & 7;
    const values = fields.get(field) ?? [];
    if (wire === 0) values.push(int64ToNumber(reader.int64()));
    else if (wire === 2) values.push(reader.bytes());
    else reader.skipType(wire);
    fields.set(field, values);
  }
  return fields;
}

/** protobufjs yields int64 as a Long-like {low, high} or a number. */
function int64ToNumber(value: number | { low: number; high: number }): number {
  return typeof value === 'number' ? value : value.high * 2 ** 32 + (value.low >>> 0);
}

const text = (value: number | Uint8Array | undefined): string =>
  value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : '';

/** Packed repeated int64 (shape) from a length-delimited field. */
function packedInt64(value: number | Uint8Array | undefined): number[] {
  if (!(value instanceof Uint8Array)) return [];
  const reader = protobuf.Reader.create(value);
  const out: number[] = [];
  while (reader.pos < reader.len) out.push(int64ToNumber(reader.int64()));
  return out;
}

function tensorMetadata(bytes: number | Uint8Array): { name: string; datatype: string; shape: number[] } {
  const fields = readFields(bytes as Uint8Array);
  return {
    name: text(fields.get(1)?.[0]),
    datatype: text(fields.get(2)?.[0]),
    shape: packedInt64(fields.get(3)?.[0]),
  };
}

export class SpecWireClient {
  private readonly client: grpc.Client;

  constructor(address: string) {
    this.client = new grpc.Client(address, grpc.credentials.createInsecure());
  }

  private unary(method: string, request: Uint8Array): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      this.client.makeUnaryRequest<Uint8Array, Uint8Array>(
        `${SERVICE}/${method}`,
        (message) => Buffer.from(message),
        (buffer) => new Uint8Array(buffer),
        request,
        (error, response) =>
          error || !response ? reject(error ?? new Error('no response')) : resolve(response),
      );
    });
  }

  /** ModelMetadata: name (1), version (2) → name (1), versions (2), platform (3), inputs (4), outputs (5). */
  async modelMetadata(name: string) {
    const request = protobuf.Writer.create()
      .uint32((1 << 3) | 2)
      .string(name)
      .finish();
    const fields = readFields(await this.unary('ModelMetadata', request));
    return {
      name: text(fields.get(1)?.[0]),
      versions: (fields.get(2) ?? []).map(text),
      platform: text(fields.get(3)?.[0]),
      inputs: (fields.get(4) ?? []).map(tensorMetadata),
      outputs: (fields.get(5) ?? []).map(tensorMetadata),
    };
  }

  /**
   * ModelInfer with int64 inputs in raw_input_contents (7); InferInputTensor: name (1),
   * datatype (2), shape (3). The response's outputs (5) and raw_output_contents (6) come back.
   */
  async modelInfer(
    model: string,
    id: string,
    inputs: { name: string; shape: number[]; data: BigInt64Array }[],
  ) {
    const writer = protobuf.Writer.create();
    writer.uint32((1 << 3) | 2).string(model);
    writer.uint32((3 << 3) | 2).string(id);
    for (const input of inputs) {
      const tensor = protobuf.Writer.create();
      tensor.uint32((1 << 3) | 2).string(input.name);
      tensor.uint32((2 << 3) | 2).string('INT64');
      tensor.uint32((3 << 3) | 2).fork();
      for (const dim of input.shape) tensor.int64(dim);
      tensor.ldelim();
      writer.uint32((5 << 3) | 2).bytes(tensor.finish());
    }
    for (const input of inputs) {
      writer
        .uint32((7 << 3) | 2)
        .bytes(new Uint8Array(input.data.buffer, input.data.byteOffset, input.data.byteLength));
    }
    const fields = readFields(await this.unary('ModelInfer', writer.finish()));
    return {
      modelName: text(fields.get(1)?.[0]),
      id: text(fields.get(3)?.[0]),
      outputs: (fields.get(5) ?? []).map(tensorMetadata),
      raw: (fields.get(6) ?? []) as Uint8Array[],
    };
  }

  close(): void {
    this.client.close();
  }
}
