/**
 * The body limit of the serve routes, per endpoint: an image endpoint takes bodies as large as its
 * `maxImageBytes` allows (raw, or base64 in JSON: 4 bytes per 3, plus the envelope), every other
 * body GATEWAY_BODY_LIMIT_BYTES. The routes' own Fastify limit is lifted; this preParsing hook
 * answers 413 from Content-Length before reading, and counts a chunked body as it arrives.
 */
import { Transform } from 'node:stream';
import { ErrorCode, type EndpointSpec, toHttpStatus } from '@modelgate/contracts';
import { DEFAULT_IMAGE_LIMITS } from '@modelgate/processing';
import { type FastifyRequest, type preParsingHookHandler } from 'fastify';

/** Room for the JSON around a base64 image (`{"image": "data:image/jpeg;base64,…", "parameters": …}`). */
const JSON_ENVELOPE_BYTES = 4096;

/** Fastify's ceiling for the serve routes: the hook below sets each request's real limit. */
export const SERVE_ROUTE_BODY_CEILING = Number.MAX_SAFE_INTEGER;

/**
 * The most bytes a /serve body to `endpoint` may carry (`bodyLimit`: GATEWAY_BODY_LIMIT_BYTES);
 * `readsImages`: whether it may read an image (its task, or a raw endpoint's routed models).
 */
export function serveBodyLimit(
  endpoint: EndpointSpec | undefined,
  bodyLimit: number,
  readsImages: boolean,
): number {
  if (endpoint === undefined || !readsImages) return bodyLimit;
  const maxImageBytes = endpoint.preprocessing.maxImageBytes ?? DEFAULT_IMAGE_LIMITS.maxImageBytes;
  return Math.max(bodyLimit, Math.ceil(maxImageBytes / 3) * 4 + JSON_ENVELOPE_BYTES);
}

function tooLarge(limit: number): Error {
  const message = `the request body is over ${limit} bytes, this endpoint's limit`;
  return Object.assign(new Error(message), { statusCode: toHttpStatus(ErrorCode.PAYLOAD_TOO_LARGE) });
}

/** The request body stream a preParsing hook gets and hands on. */
type Payload = Parameters<preParsingHookHandler>[2];

/** The serve routes' preParsing hook, for the limit `limitOf` gives each request. */
export function limitServeBody(limitOf: (request: FastifyRequest) => number): preParsingHookHandler {
  return (request, _reply, payload, done) => {
    const limit = limitOf(request);
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared)) {
      // Fastify reads no more than Content-Length says (and refuses a body that differs).
      if (declared > limit) done(tooLarge(limit));
      else done(null, payload);
      return;
    }
    let received = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, next) {
        received += chunk.length;
        next(received > limit ? tooLarge(limit) : null, chunk);
      },
    });
    // Fastify compares what was read with its own limit through this.
    const counted: Payload = Object.defineProperty(counter, 'receivedEncodedLength', { get: () => received });
    payload.pipe(counter);
    done(null, counted);
  };
}
