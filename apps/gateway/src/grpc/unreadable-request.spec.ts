import { type ServiceDefinition } from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import {
  ErrorCode,
  INFERENCE_PROTO_PATH,
  INFERENCE_SERVICE_NAME,
  ModelgateError,
  OIP_SERVER_LOADER_OPTIONS,
} from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { UnreadableRequest, readableRequest, withUnreadableRequests } from './unreadable-request.js';

const definition = protoLoader.loadSync(INFERENCE_PROTO_PATH, OIP_SERVER_LOADER_OPTIONS);
const service = withUnreadableRequests(definition[INFERENCE_SERVICE_NAME] as ServiceDefinition);
const infer = service.ModelInfer!;

describe('requests whose bytes are no message', () => {
  it('reads a message as the service would', () => {
    const bytes = infer.requestSerialize({ model_name: 'sentiment', id: 'r1' });
    expect(readableRequest(infer.requestDeserialize(bytes))).toMatchObject({
      model_name: 'sentiment',
      id: 'r1',
    });
  });

  it('hands the handler an INVALID_ARGUMENT naming the method for bytes that are no message, instead of throwing', () => {
    // model_name 'ab', then a byte whose wire type (7) does not exist.
    const request: unknown = infer.requestDeserialize(Buffer.from([0x0a, 0x02, 0x61, 0x62, 0xff]));
    expect(request).toBeInstanceOf(UnreadableRequest);
    let thrown: unknown;
    try {
      readableRequest(request);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ModelgateError);
    expect(thrown).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    expect((thrown as Error).message).toMatch(/^the ModelInfer request is not a valid protobuf message: /);
  });

  it('keeps every method of the service, and its response serializer', () => {
    const original = definition[INFERENCE_SERVICE_NAME] as ServiceDefinition;
    expect(Object.keys(service)).toEqual(Object.keys(original));
    expect(service.ServerLive?.responseSerialize).toBe(original.ServerLive?.responseSerialize);
    expect(service.ServerLive!.requestDeserialize(Buffer.from([0xff]))).toBeInstanceOf(UnreadableRequest);
  });
});
