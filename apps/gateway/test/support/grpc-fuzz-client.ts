// Sends fuzzed messages to a gRPC server as bytes (so a test can send what no well-behaved client
// would: a truncated message, fields repeated, a message past the size limit) and judges how each
// call ended: a status that is not one of gRPC's "server fault" statuses, with a readable message.
import * as grpc from '@grpc/grpc-js';
import { INFERENCE_PROTO_PATH } from '@modelgate/contracts';
import protobuf from 'protobufjs';

const SERVICE = '/inference.GRPCInferenceService';
// Field names as the .proto spells them (model_name, raw_input_contents), as the gateway reads them.
const root = new protobuf.Root().loadSync(INFERENCE_PROTO_PATH, { keepCase: true });

/** The bytes of `message` as the Open Inference Protocol message `type` (e.g. `ModelInferRequest`). */
export function encodeMessage(type: string, message: object): Uint8Array {
  return root.lookupType(`inference.${type}`).encode(message).finish();
}

/** `bytes` read as the message `type`, plain (int64 as strings, bytes as Buffers). */
export function decodeMessage(type: string, bytes: Uint8Array): Record<string, unknown> {
  const messageType = root.lookupType(`inference.${type}`);
  return messageType.toObject(messageType.decode(bytes), { longs: String, defaults: false });
}

/** How a call ended: its status, and the messages the server sent before it. */
export interface GrpcOutcome {
  code: grpc.status;
  details: string;
  messages: Uint8Array[];
}

/**
 * How the client ends a stream: it half-closes once it wrote, and may cancel once it has read
 * `afterMessages` answers (0: at once, before it half-closes), unless the server ended it first.
 */
export type StreamEnding = { type: 'half-close' } | { type: 'cancel'; afterMessages: number };

const identity = {
  serialize: (message: Uint8Array) => Buffer.from(message),
  deserialize: (buffer: Buffer) => new Uint8Array(buffer),
};

/** A client that sends and receives the messages of the inference service as bytes. */
export class RawGrpcClient {
  private readonly client: grpc.Client;

  constructor(address: string) {
    this.client = new grpc.Client(address, grpc.credentials.createInsecure(), {
      'grpc.max_send_message_length': -1,
      'grpc.max_receive_message_length': -1,
    });
  }

  /** One unary call of `method`; resolves with how it ended, never rejects. */
  unary(
    method: string,
    bytes: Uint8Array,
    metadata: grpc.Metadata,
    deadlineMs?: number,
  ): Promise<GrpcOutcome> {
    return new Promise((resolve) => {
      const options = deadlineMs === undefined ? {} : { deadline: Date.now() + deadlineMs };
      this.client.makeUnaryRequest<Uint8Array, Uint8Array>(
        `${SERVICE}/${method}`,
        identity.serialize,
        identity.deserialize,
        bytes,
        metadata,
        options,
        (error, response) =>
          resolve(
            error
              ? { code: error.code, details: error.details, messages: [] }
              : { code: grpc.status.OK, details: '', messages: response ? [response] : [] },
          ),
      );
    });
  }

  /** One bidirectional stream of `method`: writes `messages`, then ends as `ending` says. */
  stream(
    method: string,
    messages: readonly Uint8Array[],
    metadata: grpc.Metadata,
    ending: StreamEnding,
  ): Promise<GrpcOutcome> {
    return new Promise((resolve) => {
      const received: Uint8Array[] = [];
      const call = this.client.makeBidiStreamRequest<Uint8Array, Uint8Array>(
        `${SERVICE}/${method}`,
        identity.serialize,
        identity.deserialize,
        metadata,
      );
      call.on('data', (message: Uint8Array) => {
        received.push(message);
        if (ending.type === 'cancel' && received.length === ending.afterMessages) call.cancel();
      });
      // The status comes once, after the last message (or as the error that ends the call).
      call.on('status', (status: grpc.StatusObject) =>
        resolve({ code: status.code, details: status.details, messages: received }),
      );
      call.on('error', () => undefined);
      for (const message of messages) call.write(message);
      if (ending.type === 'cancel' && ending.afterMessages === 0) call.cancel();
      else call.end();
    });
  }

  close(): void {
    this.client.close();
  }
}

/** gRPC's statuses for a fault of the server (its 5xx): a client's call never earns one. */
const SERVER_FAULTS = new Set<grpc.status>([
  grpc.status.INTERNAL,
  grpc.status.UNKNOWN,
  grpc.status.DATA_LOSS,
]);

/**
 * Characters a status message may have: it echoes what the client sent, and the gateway clips it
 * so that the grpc-message trailer stays within gRPC's default 8 KiB of metadata.
 */
const MAX_MESSAGE_CHARS = 512;

/** A message that reads as words to a client: no stack frames, no source paths, not the size of a body. */
export function messageProblem(message: string): string | undefined {
  if (message.trim() === '') return 'an empty message';
  if (/\n\s+at |\.[jt]s:\d+|node_modules/.test(message)) return `a stack trace: ${message.slice(0, 300)}`;
  const chars = Array.from(message).length;
  if (chars > MAX_MESSAGE_CHARS) return `a message of ${chars} characters: ${message.slice(0, 200)}…`;
  return undefined;
}

/**
 * What is wrong with how a call ended, or undefined when nothing is. `cancelled`: the client
 * cancelled it, so CANCELLED is its own status; `refusable`: the statuses this call may end
 * with besides OK (a status outside them is wrong even when it is not a server fault).
 */
export function outcomeProblem(
  outcome: GrpcOutcome,
  expect: { cancelled?: boolean; refusable?: ReadonlySet<grpc.status> } = {},
): string | undefined {
  const name = grpc.status[outcome.code] ?? String(outcome.code);
  if (SERVER_FAULTS.has(outcome.code)) return `ended ${name}: ${outcome.details.slice(0, 300)}`;
  if (outcome.code === grpc.status.CANCELLED && expect.cancelled !== true) {
    return `ended CANCELLED though the client did not cancel: ${outcome.details.slice(0, 300)}`;
  }
  if (outcome.code === grpc.status.OK || outcome.code === grpc.status.CANCELLED) return undefined;
  if (expect.refusable !== undefined && !expect.refusable.has(outcome.code)) {
    return `ended ${name}, not one this call may end with: ${outcome.details.slice(0, 300)}`;
  }
  const problem = messageProblem(outcome.details);
  return problem === undefined ? undefined : `ended ${name} with ${problem}`;
}

/**
 * How many requests a ModelStreamInfer stream's responses answered (an error_message, or a
 * response marked triton_final_response), and what is wrong with one, if anything.
 */
export function streamAnswers(outcome: GrpcOutcome): { answered: number; problem?: string } {
  let answered = 0;
  for (const message of outcome.messages) {
    const response = decodeMessage('ModelStreamInferResponse', message) as {
      error_message?: string;
      infer_response?: { parameters?: Record<string, { bool_param?: boolean }> };
    };
    if (response.error_message !== undefined) {
      // What an unknown error becomes (toGrpcStatusError): the stream's INTERNAL.
      if (response.error_message === 'internal error') return { answered, problem: 'an internal error' };
      const problem = messageProblem(response.error_message);
      if (problem !== undefined) return { answered, problem };
      answered += 1;
    } else if (response.infer_response?.parameters?.triton_final_response?.bool_param === true) answered += 1;
  }
  return { answered };
}

/** A ModelInferRequest of `size` bytes of raw_input_contents (field 7), and nothing else. */
export function inferRequestOfBytes(size: number): Uint8Array {
  const header = protobuf.Writer.create()
    .uint32((7 << 3) | 2)
    .uint32(size)
    .finish();
  return Buffer.concat([header, Buffer.alloc(size)]);
}
