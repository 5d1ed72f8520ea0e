// Bytes that are no message of a method's request type are the client's fault: grpc-js answers a
// request its deserializer throws on with INTERNAL (gRPC's 5xx), so the face's deserializers
// never throw. They hand the handler an UnreadableRequest instead, which it answers with
// INVALID_ARGUMENT (a stream: with an error_message, and the stream goes on). Pure: no I/O.
import { type ServiceDefinition } from '@grpc/grpc-js';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';

/** What a handler gets for bytes its request type cannot read. */
export class UnreadableRequest {
  constructor(readonly error: ModelgateError) {}
}

/** `request`, or the INVALID_ARGUMENT of bytes that were no message, thrown. */
export function readableRequest<T>(request: T | UnreadableRequest): T {
  if (request instanceof UnreadableRequest) throw request.error;
  return request;
}

/** `service` with deserializers that return an UnreadableRequest rather than throw. */
export function withUnreadableRequests(service: ServiceDefinition): ServiceDefinition {
  return Object.fromEntries(
    Object.entries(service).map(([name, method]) => [
      name,
      {
        ...method,
        requestDeserialize: (bytes: Buffer): unknown => {
          try {
            return method.requestDeserialize(bytes);
          } catch (error) {
            const reason = error instanceof Error ? `: ${error.message}` : '';
            return new UnreadableRequest(
              new ModelgateError(
                ErrorCode.INVALID_ARGUMENT,
                `the ${name} request is not a valid protobuf message${reason}`,
              ),
            );
          }
        },
      },
    ]),
  );
}
