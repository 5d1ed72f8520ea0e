// What `POST /serve/:endpoint` takes and answers per task, as zod schemas: the gateway's OpenAPI
// document is generated from this table, so a task documents itself by having an entry here.
import { type ModelTask } from '@modelgate/contracts';
import { z } from 'zod';
import {
  generatedTextSchema,
  generationEventSchema,
  textGenerationRequestSchema,
} from './generation-schemas.js';
import { imageClassificationRequestSchema } from './image/image-classification-request.js';
import { imageToTextRequestSchema } from './image/image-to-text-request.js';
import { rankedTextSchema } from './postprocessing/rank.js';
import { groupedEntitySchema, tokenEntitySchema } from './postprocessing/token-classify.js';
import {
  questionAnswerSchema,
  questionAnsweringRequestSchema,
} from './preprocessing/question-answering-request.js';
import { rankRequestSchema } from './preprocessing/rank-request.js';
import { PARAMETERS_DESCRIPTION } from './preprocessing/request-issues.js';
import { serveRequestSchema } from './preprocessing/serve-request.js';

/** The tasks `/serve` runs; `raw` models are served by the KServe v2 routes instead. */
export type ServeTask = Exclude<ModelTask, 'raw'>;

/** A 2×2 PNG, base64: the image of the image-classification example. */
const EXAMPLE_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAEklEQVQImWM4UaFxokKDAUIBACnuBaHUWYGdAAAAAElFTkSuQmCC';

/** One task's contract on `/serve`. */
export interface ServeTaskSchemas {
  /** One line for the docs. */
  summary: string;
  /** The body; the examples below must pass it and the gateway's validation. */
  request: z.ZodType;
  /** One element of `predictions`: the answer for one input. */
  prediction: z.ZodType;
  /** A body that works as written on an endpoint of this task, and what it answers. */
  example: { summary: string; request: unknown; predictions: unknown[] };
  /** For a task that streams (`stream: true`): the `data` of one Server-Sent Event, with examples. */
  events?: { schema: z.ZodType; examples: Record<string, { summary: string; value: unknown }> };
}

/** `{label, score}`: one class of a classification answer. */
export const classScoreSchema = z.object({
  label: z.string().describe("The class name (the model's id2label, or LABEL_<i>)"),
  score: z.number().describe('Softmax probability (sigmoid for multi-label models)'),
});

const parametersSchema = serveRequestSchema.shape.parameters.unwrap();

/**
 * The serve contract of each task, in the order the docs list them (the first one's example
 * leads). The gateway's OpenAPI document is generated from it, and its spec runs each example
 * through the task's own validation. A `satisfies` table: a task added to MODEL_TASKS does not
 * compile until it says here what its body and answer are.
 */
export const SERVE_TASK_SCHEMAS = {
  'text-classification': {
    summary: 'text (and text_pair for sentence pairs) → labels with scores, best first',
    request: serveRequestSchema.extend({
      parameters: parametersSchema
        .omit({ aggregation_strategy: true, ignore_labels: true, normalize: true, pooling: true })
        .optional()
        .describe(PARAMETERS_DESCRIPTION),
    }),
    prediction: z.array(classScoreSchema).describe('Labels, best first (top_k of them)'),
    example: {
      summary: 'Two labels for one text',
      request: { text: 'I love this movie!', parameters: { top_k: 2 } },
      predictions: [
        [
          { label: 'POSITIVE', score: 0.9998 },
          { label: 'NEGATIVE', score: 0.0002 },
        ],
      ],
    },
  },
  'feature-extraction': {
    summary: 'text → one embedding per input (mean or CLS pooling, optionally L2-normalized)',
    request: serveRequestSchema.omit({ text_pair: true }).extend({
      parameters: parametersSchema
        .pick({ truncation: true, normalize: true, pooling: true })
        .optional()
        .describe(PARAMETERS_DESCRIPTION),
    }),
    prediction: z.union([
      z.object({
        embedding: z.array(z.number()).describe("The pooled vector, the model's hidden size long"),
      }),
      z.object({
        token_embeddings: z
          .array(z.array(z.number()))
          .describe('parameters.pooling none: one vector per token read (special tokens included), in order'),
      }),
    ]),
    example: {
      summary: 'Embeddings of two texts',
      request: { text: ['a first sentence', 'a second one'] },
      predictions: [{ embedding: [0.0123, -0.0456, 0.0789] }, { embedding: [0.0321, -0.0654, 0.0987] }],
    },
  },
  'question-answering': {
    summary:
      'question + context → answer spans of the context with character offsets, best first; long contexts ' +
      'are read in overlapping windows (doc_stride)',
    request: questionAnsweringRequestSchema,
    prediction: z
      .array(questionAnswerSchema)
      .describe('The answers of one (question, context) pair, best first (top_k of them)'),
    example: {
      summary: 'The best answer to one question',
      request: {
        question: 'Where do I live?',
        context: 'My name is Wolfgang and I live in Berlin',
        parameters: { top_k: 1, max_answer_len: 15 },
      },
      predictions: [[{ answer: 'Berlin', score: 0.9873, start: 34, end: 40 }]],
    },
  },
  'text-ranking': {
    summary:
      "query + texts → the texts ranked by a cross-encoder's relevance score, best first (TEI's /rerank)",
    request: rankRequestSchema,
    prediction: rankedTextSchema,
    example: {
      summary: 'The best two of three passages, with their text',
      request: {
        query: 'What is the capital of France?',
        texts: ['Paris is the capital of France.', 'Bananas are yellow.', 'France is in Europe.'],
        top_n: 2,
        return_text: true,
      },
      predictions: [
        { index: 0, score: 0.9731, text: 'Paris is the capital of France.' },
        { index: 2, score: 0.4125, text: 'France is in Europe.' },
      ],
    },
  },
  'token-classification': {
    summary:
      'text → entities (NER): per token, or grouped B-/I- by aggregation_strategy (simple, first, average, max), ' +
      'with character offsets',
    request: serveRequestSchema.omit({ text_pair: true }).extend({
      parameters: parametersSchema
        .omit({ top_k: true, function_to_apply: true, normalize: true, pooling: true })
        .optional()
        .describe(PARAMETERS_DESCRIPTION),
    }),
    prediction: z
      .array(z.union([groupedEntitySchema, tokenEntitySchema]))
      .describe('The entities of one input, in text order; labels in ignore_labels (default ["O"]) left out'),
    example: {
      summary: 'Entities grouped by their B-/I- tags',
      request: {
        text: 'My name is Sarah and I live in London',
        parameters: { aggregation_strategy: 'simple' },
      },
      predictions: [
        [
          { entity_group: 'PER', score: 0.9985, word: 'sarah', start: 11, end: 16 },
          { entity_group: 'LOC', score: 0.9996, word: 'london', start: 31, end: 37 },
        ],
      ],
    },
  },
  'text-generation': {
    summary:
      'text → generated text (greedy, or sampled with temperature / top_k / top_p / seed), ended by EOS, ' +
      'max_new_tokens or a stop string; `stream: true` answers Server-Sent Events of text deltas',
    request: textGenerationRequestSchema,
    prediction: generatedTextSchema,
    example: {
      summary: 'Eight tokens, greedy',
      request: { text: 'The capital of France is', parameters: { max_new_tokens: 8 } },
      predictions: [
        {
          generated_text: ' Paris, and the city',
          finish_reason: 'length',
          prompt_tokens: 5,
          generated_tokens: 8,
        },
      ],
    },
    events: {
      schema: generationEventSchema,
      examples: {
        delta: { summary: 'A text delta (no event name)', value: { text: ' Paris', token_ids: [6342] } },
        end: {
          summary: 'The last event, `event: end`',
          value: {
            finish_reason: 'eos',
            generated_text: ' Paris.',
            prompt_tokens: 5,
            generated_tokens: 3,
            timings: { queue_ms: 0.4, time_to_first_token_ms: 12.5, total_ms: 31.2 },
          },
        },
      },
    },
  },
  'image-classification': {
    summary:
      'image (JPEG, PNG or WebP: base64, a data URL, or the raw body with an image content type) → labels ' +
      'with scores, best first, as text-classification answers',
    request: imageClassificationRequestSchema,
    prediction: z.array(classScoreSchema).describe('Labels, best first (top_k of them)'),
    example: {
      summary: 'The best two labels of a PNG sent as a data URL',
      request: { image: `data:image/png;base64,${EXAMPLE_PNG_BASE64}`, parameters: { top_k: 2 } },
      predictions: [
        [
          { label: 'tabby cat', score: 0.8812 },
          { label: 'tiger cat', score: 0.0931 },
        ],
      ],
    },
  },
  'image-to-text': {
    summary:
      'image (JPEG, PNG or WebP: base64, a data URL, or the raw body with an image content type) → a caption, ' +
      'decoded as text-generation is; `stream: true` answers Server-Sent Events of text deltas',
    request: imageToTextRequestSchema,
    prediction: generatedTextSchema,
    example: {
      summary: 'A caption of at most 16 tokens, greedy',
      request: { image: `data:image/png;base64,${EXAMPLE_PNG_BASE64}`, parameters: { max_new_tokens: 16 } },
      predictions: [
        {
          generated_text: 'a cat sitting on a wooden table',
          finish_reason: 'eos',
          prompt_tokens: 1,
          generated_tokens: 8,
        },
      ],
    },
    events: {
      schema: generationEventSchema,
      examples: {
        delta: { summary: 'A text delta (no event name)', value: { text: ' cat', token_ids: [3797] } },
        end: {
          summary: 'The last event, `event: end`',
          value: {
            finish_reason: 'eos',
            generated_text: 'a cat sitting on a wooden table',
            prompt_tokens: 1,
            generated_tokens: 8,
            timings: { queue_ms: 0.4, time_to_first_token_ms: 14.2, total_ms: 48.9 },
          },
        },
      },
    },
  },
} satisfies Record<ServeTask, ServeTaskSchemas>;

/** The served tasks in the table's order. */
export const SERVE_TASKS = Object.keys(SERVE_TASK_SCHEMAS) as ServeTask[];
