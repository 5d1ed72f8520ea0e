// The /serve body of an image-to-text endpoint: JSON `{"image": <base64 or data URL>, "parameters":
// {...decoding}, "stream": bool}` (strict), or the image itself as the body with an image content type.
import { validationError } from '@modelgate/contracts';
import {
  type GenerationParams,
  textGenerationParametersSchema,
  toGenerationParams,
} from '@modelgate/generation';
import { z } from 'zod';
import { imageFieldSchema } from './image-classification-request.js';
import { requestIssues } from '../preprocessing/request-issues.js';
import { type ImageInput, decodeImageField, parseImageRequest } from './image-request.js';
import { type ImageLimits } from './raw-pixels.js';

/** The JSON body of an image-to-text endpoint; unknown keys are refused. */
export const imageToTextRequestSchema = z.strictObject(
  {
    image: imageFieldSchema,
    parameters: textGenerationParametersSchema
      .optional()
      .describe(
        'Decoding parameters of the caption (TGI names), as for text-generation; return_full_text is refused (there is no prompt)',
      ),
    stream: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe(
        'true: answer Server-Sent Events, one `data: {"text", "token_ids"}` per delta, then `event: end`; false (default): one JSON answer',
      ),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? 'the body must be a JSON object' : undefined) },
);

/** A validated image-to-text request. */
export interface ImageToTextRequest {
  /** The encoded image, its format and size checked (not yet decoded). */
  image: ImageInput;
  /** Decoding parameters, defaults filled in (a raw image body: all defaults). */
  params: GenerationParams;
  /** Whether the request named max_new_tokens (else the model's default length applies, as transformers.js' does). */
  lengthGiven: boolean;
  /** `stream` of a JSON body; false for a raw image body (its transport decides). */
  stream: boolean;
}

/**
 * Validates an image-to-text request: a raw image body (content type image/*) with the default
 * parameters, else the strict JSON body, whose `image` is then decoded and checked. Errors as
 * parseImageRequest (400, 413, 415); INVALID_ARGUMENT naming every bad field, and
 * `parameters.return_full_text`, which means nothing without a prompt.
 */
export function parseImageToTextRequest(
  source: { contentType: string | undefined; body: unknown },
  limits: ImageLimits,
): ImageToTextRequest {
  if (source.body instanceof Uint8Array) {
    const { returnFullText: _none, ...params } = toGenerationParams(undefined);
    return { image: parseImageRequest(source, limits), params, lengthGiven: false, stream: false };
  }
  const parsed = imageToTextRequestSchema.safeParse(source.body);
  if (!parsed.success) throw validationError('request body', requestIssues(parsed.error));
  const { image, parameters, stream } = parsed.data;
  if (parameters?.return_full_text !== undefined) {
    throw validationError('request body', [
      {
        path: 'parameters.return_full_text',
        message: 'image-to-text answers the caption alone (there is no prompt to prefix); leave it out',
      },
    ]);
  }
  const { returnFullText: _none, ...params } = toGenerationParams(parameters);
  return {
    image: decodeImageField(image, limits),
    params,
    lengthGiven: parameters?.max_new_tokens !== undefined,
    stream: stream ?? false,
  };
}
