import { type EndpointSpec, type PreprocessingConfig, validationError } from '@modelgate/contracts';
import { type GenerationParams, toGenerationParams } from '@modelgate/generation';
import {
  checkTextLengths,
  parseImageToTextRequest,
  requestIssues,
  textGenerationRequestSchema,
} from '@modelgate/processing';
import { RawImageBody } from '../../http/image-body.js';
import { imageLimitsOf, imageSourceOf } from '../image-input.js';
import { type GenerationInput } from './generation-input.js';

/** The `/serve/<endpoint>` body of a text-generation endpoint (one schema, also in the OpenAPI document). */
export const serveGenerationBodySchema = textGenerationRequestSchema;

/** A checked generation body: a prompt (text-generation) or an image (image-to-text). */
export interface ServeGenerationRequest {
  input: GenerationInput;
  params: GenerationParams;
  /** Prefix the answer with the prompt (text-generation only). */
  returnFullText: boolean;
  stream: boolean;
}

/**
 * Validates a `/serve` body for a text-generation endpoint: INVALID_ARGUMENT (400) naming every
 * bad or unknown field, PAYLOAD_TOO_LARGE (413) for a prompt over the endpoint's maxInputChars.
 */
export function parseServeGenerationBody(
  body: unknown,
  preprocessing: Pick<PreprocessingConfig, 'maxInputChars'>,
): ServeGenerationRequest {
  const parsed = serveGenerationBodySchema.safeParse(body);
  if (!parsed.success) throw validationError('request body', requestIssues(parsed.error));
  const { text, parameters, stream } = parsed.data;
  checkTextLengths([text], 'text', false, preprocessing.maxInputChars);
  const { returnFullText, ...params } = toGenerationParams(parameters);
  return { input: { kind: 'text', prompt: text }, params, returnFullText, stream: stream ?? false };
}

/**
 * Validates a `/serve` call of a generative endpoint: text-generation's body, or image-to-text's
 * (JSON with `image`, or the raw image, checked against the endpoint's image limits: 400, 413,
 * 415; `parameters.return_full_text` 400). A raw image body streams when `streamRawImage` (the
 * client's Accept asks for text/event-stream).
 */
export function parseServeGenerationCall(
  endpoint: EndpointSpec,
  body: unknown,
  streamRawImage = false,
): ServeGenerationRequest {
  if (endpoint.task !== 'image-to-text') return parseServeGenerationBody(body, endpoint.preprocessing);
  const request = parseImageToTextRequest(imageSourceOf(body), imageLimitsOf(endpoint));
  return {
    input: { kind: 'image', image: request.image, lengthGiven: request.lengthGiven },
    params: request.params,
    returnFullText: false,
    stream: body instanceof RawImageBody ? streamRawImage : request.stream,
  };
}

/** The generated_text of an answer: the prompt prefixed when return_full_text. */
export function answerText(request: ServeGenerationRequest, text: string): string {
  return request.returnFullText && request.input.kind === 'text' ? request.input.prompt + text : text;
}
