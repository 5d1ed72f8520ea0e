// Triton's ModelStreamInfer on the gateway's gRPC face (gateway-grpc.ts): a text-generation
// endpoint's deltas as they come, anything else as one final ModelInfer answer.
import { type ServerDuplexStream } from '@grpc/grpc-js';
import {
  type EndpointSpec,
  type GrpcStatusError,
  type OipInferRequest,
  encodeTensor,
} from '@modelgate/contracts';
import { type GenerationService } from '../serving/generation/generation.service.js';
import { parseServeGenerationCall } from '../serving/generation/serve-generation-body.js';
import { stickyRouteKey } from '../serving/sticky-key.js';
import {
  type Headers,
  type InferResponse,
  boolParam,
  headersOf,
  requestIdOf,
  stringParam,
} from './oip-calls.js';
import { isTextRequest, textServeBody } from './oip-text.js';
import { type UnreadableRequest, readableRequest } from './unreadable-request.js';

/** What serving a stream needs of the face. */
export interface StreamDeps {
  infer(request: OipInferRequest, headers: Headers, signal: AbortSignal): Promise<InferResponse>;
  endpoint(name: string): EndpointSpec | undefined;
  generation: GenerationService;
  status(error: unknown): GrpcStatusError;
}

/**
 * ModelStreamInfer: each request of the stream is answered by its own responses (a generation's
 * deltas, then a final one; any other request its ModelInfer answer, final); a failed request is
 * an error_message response and the stream goes on. The stream ends once the client ended its side
 * and every request was answered; the client going away cancels what runs.
 */
export function serveInferStream(
  call: ServerDuplexStream<OipInferRequest | UnreadableRequest, unknown>,
  deps: StreamDeps,
): void {
  const abort = new AbortController();
  const headers = headersOf(call.metadata);
  let running = 0;
  let ended = false;
  const finish = (): void => {
    if (ended && running === 0) call.end();
  };
  call.on('cancelled', () => abort.abort());
  call.on('end', () => {
    ended = true;
    finish();
  });
  call.on('data', (request: OipInferRequest | UnreadableRequest) => {
    running += 1;
    Promise.resolve()
      .then(() =>
        streamOne(deps, readableRequest(request), headers, abort.signal, (message) => {
          if (!abort.signal.aborted) call.write(message);
        }),
      )
      .catch((error: unknown) => {
        if (!abort.signal.aborted) call.write({ error_message: deps.status(error).message });
      })
      .finally(() => {
        running -= 1;
        finish();
      });
  });
}

async function streamOne(
  deps: StreamDeps,
  request: OipInferRequest,
  headers: Headers,
  signal: AbortSignal,
  write: (message: unknown) => void,
): Promise<void> {
  const endpoint = deps.endpoint(request.model_name);
  const final = { triton_final_response: boolParam(true) };
  if (!endpoint || endpoint.task !== 'text-generation' || !isTextRequest(request)) {
    const response = await deps.infer(request, headers, signal);
    write({ infer_response: { ...response, parameters: { ...response.parameters, ...final } } });
    return;
  }
  const { input, params } = parseServeGenerationCall(
    endpoint,
    textServeBody(request, endpoint.task, endpoint.name),
  );
  const stickyKey = stickyRouteKey(headers, endpoint);
  const stream = await deps.generation.start(
    { endpoint: endpoint.name, ...(request.model_version ? { version: request.model_version } : {}) },
    input,
    params,
    { signal, headers, requestId: requestIdOf(headers), ...(stickyKey === undefined ? {} : { stickyKey }) },
  );
  const base = { model_name: endpoint.name, model_version: stream.version, id: request.id ?? '' };
  for await (const event of stream.events) {
    if (event.type === 'delta') {
      if (event.text === '') continue;
      write({
        infer_response: {
          ...base,
          outputs: [{ name: 'text_output', datatype: 'BYTES', shape: [1] }],
          raw_output_contents: [encodeTensor('BYTES', [1], [event.text], 'text_output')],
        },
      });
    } else {
      write({
        infer_response: {
          ...base,
          parameters: { ...final, finish_reason: stringParam(event.finishReason) },
          outputs: [],
          raw_output_contents: [],
        },
      });
    }
  }
}
