// image-classification on /serve: the body (JSON with a base64 or data-URL `image`, or the raw
// image) is checked against the endpoint's image limits, decoded and preprocessed by the routed
// model's preprocessor_config.json, a few decodes at a time, into FP32 pixel_values [1, 3, H, W]:
// one row, which the worker's batcher stacks with other requests' rows.
import { type EndpointSpec, ErrorCode, ModelgateError } from '@modelgate/contracts';
import {
  DEFAULT_IMAGE_LIMITS,
  type ImageClassificationRequest,
  type ImageInput,
  type ImageLimits,
  parseImageClassificationRequest,
} from '@modelgate/processing';
import { type ServableModel } from '../endpoints/endpoint-table.js';
import { RawImageBody } from '../http/image-body.js';
import { type ConcurrencyGate } from './concurrency-gate.js';

/** The input an image classifier reads. */
export const PIXEL_VALUES = 'pixel_values';

/** Images decoded at once per gateway process (each decode holds a libuv pool thread). */
export const IMAGE_DECODE_CONCURRENCY = 4;

/** The image limits of `endpoint`: its preprocessing fields, else the defaults. */
export function imageLimitsOf(endpoint: EndpointSpec): ImageLimits {
  const { maxImageBytes, maxImagePixels } = endpoint.preprocessing;
  return {
    maxImageBytes: maxImageBytes ?? DEFAULT_IMAGE_LIMITS.maxImageBytes,
    maxImagePixels: maxImagePixels ?? DEFAULT_IMAGE_LIMITS.maxImagePixels,
  };
}

/** Validates the body of a call of an image-classification endpoint (400, 413, 415). */
export function parseImageCall(endpoint: EndpointSpec, body: unknown): ImageClassificationRequest {
  const source =
    body instanceof RawImageBody
      ? { contentType: body.contentType, body: body.bytes }
      : { contentType: undefined, body };
  return parseImageClassificationRequest(source, imageLimitsOf(endpoint));
}

/** 415 for a raw image sent to an endpoint whose task reads JSON. */
export function refuseRawImage(endpoint: EndpointSpec, body: unknown): void {
  if (body instanceof RawImageBody && endpoint.task !== 'image-classification') {
    throw new ModelgateError(
      ErrorCode.UNSUPPORTED_MEDIA_TYPE,
      `endpoint ${endpoint.name} (${endpoint.task}) takes a JSON body (content-type: application/json), not an image`,
    );
  }
}

/** A call's body as JSON: a raw image becomes `{"image": "data:..."}` (asynchronous jobs queue JSON). */
export function asJsonBody(body: unknown): unknown {
  return body instanceof RawImageBody ? body.toJson() : body;
}

/** The FP32 pixel_values [1, 3, H, W] of `image` for `model`, decoded within `gate`. */
export async function imageInputs(
  model: ServableModel,
  endpoint: EndpointSpec,
  image: ImageInput,
  gate: ConcurrencyGate,
): Promise<{ name: string; datatype: 'FP32'; dims: number[]; data: Float32Array }[]> {
  const files = model.image;
  if (!files) {
    throw new ModelgateError(ErrorCode.INTERNAL, `model ${model.spec.id} has no image preprocessing`);
  }
  const processor = files.processorFor(imageLimitsOf(endpoint));
  const pixels = await gate.run(() => processor.process(image.bytes));
  return [{ name: PIXEL_VALUES, datatype: 'FP32', dims: [1, ...pixels.dims], data: pixels.data }];
}
