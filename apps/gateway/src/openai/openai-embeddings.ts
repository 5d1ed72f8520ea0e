/**
 * The OpenAI embeddings contract (`POST /v1/embeddings`), as TEI and vLLM offer it: the request
 * checked, and a feature-extraction answer shaped as OpenAI's list. Embeddings are unit length, as
 * OpenAI's and TEI's are, unless the endpoint opts out (postprocessing.normalize false): then they
 * are the model's pooled vectors. `dimensions` truncates each embedding (Matryoshka) and
 * re-normalizes the shortened one (only shortens where the endpoint opted out);
 * `encoding_format: base64` sends little-endian float32 bytes. Pure: no I/O.
 */
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { shortenEmbedding } from '@modelgate/processing';
import { z } from 'zod';

export const openAiEmbeddingsRequestSchema = z
  .object({
    model: z.string().min(1).describe('The endpoint (task feature-extraction) to embed with'),
    input: z
      .union([z.string(), z.array(z.string()).min(1)])
      .describe('One text, or an array of texts; token-id arrays are not accepted'),
    dimensions: z
      .number()
      .int()
      .min(1)
      .nullish()
      .transform((dimensions) => dimensions ?? undefined)
      .describe(
        'Keep the first N dimensions of each embedding (Matryoshka), re-normalized to unit length unless the endpoint opts out of normalizing (postprocessing.normalize false); null: all',
      ),
    encoding_format: z
      .enum(['float', 'base64'])
      .nullish()
      .transform((format) => format ?? 'float')
      .describe('float arrays, or base64 of little-endian float32 bytes'),
    user: z
      .string()
      .nullish()
      .transform((user) => user ?? undefined)
      .describe("OpenAI's end-user id, for tracing abuse: written to the gateway's log line of the request"),
  })
  .strict();

export type OpenAiEmbeddingsRequest = z.infer<typeof openAiEmbeddingsRequestSchema>;

/** OpenAI's embeddings answer. */
export interface OpenAiEmbeddingsResponse {
  object: 'list';
  data: { object: 'embedding'; index: number; embedding: number[] | string }[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}

/** The checked request; INVALID_ARGUMENT naming the field otherwise (token-id inputs included). */
export function parseOpenAiEmbeddingsRequest(body: unknown): OpenAiEmbeddingsRequest {
  const parsed = openAiEmbeddingsRequestSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.') ?? '';
  const input = (body as { input?: unknown } | null)?.input;
  const tokenIds =
    field.startsWith('input') &&
    Array.isArray(input) &&
    input.some((item) => typeof item === 'number' || Array.isArray(item));
  const message = tokenIds
    ? 'input: token-id arrays are not accepted; send the text (a string or an array of strings)'
    : `${field || 'body'}: ${issue?.message ?? 'invalid request'}`;
  throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, message, { field: field || 'body' });
}

/** Shapes feature-extraction predictions (`[{embedding}]`, one per input) as OpenAI's answer. */
export function toOpenAiEmbeddings(
  request: OpenAiEmbeddingsRequest,
  predictions: readonly unknown[],
  promptTokens: number,
  /**
   * Answer unit-length embeddings, L2-normalized after any truncation (the default); false where
   * the endpoint opts out (postprocessing.normalize false).
   */
  unitLength: boolean,
): OpenAiEmbeddingsResponse {
  const data = predictions.map((prediction, index) => {
    // Normalizing is idempotent on an endpoint that normalizes already (within float rounding).
    const vector = shortenEmbedding(
      (prediction as { embedding: number[] }).embedding,
      request.dimensions,
      unitLength,
    );
    const embedding = request.encoding_format === 'base64' ? toBase64Float32(vector) : vector;
    return { object: 'embedding' as const, index, embedding };
  });
  return {
    object: 'list',
    data,
    model: request.model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}

function toBase64Float32(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes.toString('base64');
}
