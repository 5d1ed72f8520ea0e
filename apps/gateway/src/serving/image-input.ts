// Images on /serve, for the tasks that read one (image-classification: serving/tasks/
// image-classification.ts; image-to-text: serving/generation/generation-input.ts): which endpoints
// take a raw image body, the endpoint's image limits, and the decode and preprocessing by the
// routed model's preprocessor_config.json, a few decodes at a time.
import { type EndpointSpec, ErrorCode, type ModelTask, ModelgateError } from '@modelgate/contracts';
import {
  DEFAULT_IMAGE_LIMITS,
  type ImageInput,
  type ImageLimits,
  type ImageRequestSource,
  type PixelValues,
} from '@modelgate/processing';
import { type EndpointTable, type ServableModel } from '../endpoints/endpoint-table.js';
import { RawImageBody } from '../http/image-body.js';
import { type ConcurrencyGate } from './concurrency-gate.js';

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

/** Whether an endpoint of `task` reads an image (and so takes a raw image body). */
export function takesImage(task: ModelTask): boolean {
  return task === 'image-classification' || task === 'image-to-text';
}

/** A call's body as the image parsers read it: a raw image's bytes and content type, else the JSON. */
export function imageSourceOf(body: unknown): ImageRequestSource {
  return body instanceof RawImageBody
    ? { contentType: body.contentType, body: body.bytes }
    : { contentType: undefined, body };
}

/**
 * Whether `endpoint` may read images: its task does, or it is raw (answering as the model it
 * routes to does) with a route to an image model. For the body limit, before a route is chosen.
 */
export function mayReadImages(table: EndpointTable, endpoint: EndpointSpec): boolean {
  if (endpoint.task !== 'raw') return takesImage(endpoint.task);
  return endpoint.routes.some((route) => {
    const model = table.models.get(route.model);
    return model !== undefined && takesImage(model.spec.task);
  });
}

/**
 * 415 for a raw image sent to an endpoint whose task reads JSON. A raw endpoint answers as the
 * model it routes to does: it is checked once that model is known (`model`), and passes before.
 */
export function refuseRawImage(endpoint: EndpointSpec, body: unknown, model?: ServableModel): void {
  if (!(body instanceof RawImageBody)) return;
  if (endpoint.task !== 'raw') {
    if (takesImage(endpoint.task)) return;
    throw new ModelgateError(
      ErrorCode.UNSUPPORTED_MEDIA_TYPE,
      `endpoint ${endpoint.name} (${endpoint.task}) takes a JSON body (content-type: application/json), not an image`,
    );
  }
  if (model === undefined || takesImage(model.spec.task)) return;
  throw new ModelgateError(
    ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    `endpoint ${endpoint.name} (raw) routes this call to model ${model.spec.id}, which does ${model.spec.task} ` +
      'and takes a JSON body (content-type: application/json), not an image',
  );
}

/** A call's body as JSON: a raw image becomes `{"image": "data:..."}` (asynchronous jobs queue JSON). */
export function asJsonBody(body: unknown): unknown {
  return body instanceof RawImageBody ? body.toJson() : body;
}

/** The pixel values [3, H, W] of `image` for `model` under `endpoint`'s limits, decoded within `gate`. */
export function preprocessImage(
  model: ServableModel,
  endpoint: EndpointSpec,
  image: ImageInput,
  gate: ConcurrencyGate,
): Promise<PixelValues> {
  const files = model.image;
  if (!files) {
    throw new ModelgateError(ErrorCode.INTERNAL, `model ${model.spec.id} has no image preprocessing`);
  }
  const processor = files.processorFor(imageLimitsOf(endpoint));
  return gate.run(() => processor.process(image.bytes));
}
