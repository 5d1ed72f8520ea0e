// The /serve body of an image-classification endpoint: JSON `{"image": <base64 or data URL>,
// "parameters": {"top_k": n}}` (strict), or the image itself as the body with an image content type.
import { validationError } from '@modelgate/contracts';
import { z } from 'zod';
import { PARAMETERS_DESCRIPTION, requestIssues } from '../preprocessing/request-issues.js';
import { type ImageInput, decodeImageField, parseImageRequest } from './image-request.js';
import { type ImageLimits } from './raw-pixels.js';

/** The `image` field of an image task's JSON body (image-classification, image-to-text). */
export const imageFieldSchema = z
  .string({
    error: (issue) => (issue.input === undefined ? 'is required' : 'must be a base64 string or a data URL'),
  })
  .describe(
    'The image (JPEG, PNG or WebP): base64, or a data URL `data:image/png;base64,...`. Or send the ' +
      'image itself as the body with Content-Type image/jpeg, image/png or image/webp',
  );

/** The JSON body of an image-classification endpoint; unknown keys are refused. */
export const imageClassificationRequestSchema = z.strictObject(
  {
    image: imageFieldSchema,
    parameters: z
      .strictObject({
        top_k: z
          .int({ error: 'must be a positive integer' })
          .min(1, 'must be a positive integer')
          .optional()
          .describe("Labels to return, best first; the endpoint's topK (else 1) when omitted"),
      })
      .optional()
      .describe(PARAMETERS_DESCRIPTION),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? 'the body must be a JSON object' : undefined) },
);

/** A validated image-classification request. */
export interface ImageClassificationRequest {
  /** The encoded image, its format and size checked (not yet decoded). */
  image: ImageInput;
  /** `parameters.top_k` when given. */
  topK?: number;
}

/**
 * Validates an image-classification request: a raw image body (content type image/*), else the
 * strict JSON body, whose `image` is then decoded and checked. Errors as parseImageRequest:
 * INVALID_ARGUMENT (400), UNSUPPORTED_MEDIA_TYPE (415), PAYLOAD_TOO_LARGE (413).
 */
export function parseImageClassificationRequest(
  source: { contentType: string | undefined; body: unknown },
  limits: ImageLimits,
): ImageClassificationRequest {
  if (source.body instanceof Uint8Array) return { image: parseImageRequest(source, limits) };
  const parsed = imageClassificationRequestSchema.safeParse(source.body);
  if (!parsed.success) throw validationError('request body', requestIssues(parsed.error));
  const topK = parsed.data.parameters?.top_k;
  return {
    image: decodeImageField(parsed.data.image, limits),
    ...(topK === undefined ? {} : { topK }),
  };
}
