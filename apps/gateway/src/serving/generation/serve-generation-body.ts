import { type PreprocessingConfig, validationError } from '@modelgate/contracts';
import { type GenerationParams, toGenerationParams } from '@modelgate/generation';
import { checkTextLengths, requestIssues, textGenerationRequestSchema } from '@modelgate/processing';

/** The `/serve/<endpoint>` body of a text-generation endpoint (one schema, also in the OpenAPI document). */
export const serveGenerationBodySchema = textGenerationRequestSchema;

/** A checked generation body. */
export interface ServeGenerationRequest {
  prompt: string;
  params: GenerationParams;
  /** Prefix the answer with the prompt. */
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
  return { prompt: text, params, returnFullText, stream: stream ?? false };
}
