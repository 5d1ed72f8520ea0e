// The `parameters` a token-classification request adds to a serve body (`aggregation_strategy`,
// `ignore_labels`, as transformers' pipeline names them), and their check against the task.
import { ErrorCode, type ModelTask, ModelgateError } from '@modelgate/contracts';
import { z } from 'zod';
import { AGGREGATION_STRATEGIES, type AggregationStrategy } from '../postprocessing/token-classify.js';

/** Labels a client may list in `ignore_labels`; bounds the set a request can make us build. */
const MAX_IGNORE_LABELS = 1000;

/** The token-classification fields of a serve body's `parameters` (spread into its schema). */
export const tokenClassificationParameters = {
  aggregation_strategy: z
    .enum(AGGREGATION_STRATEGIES, { error: `must be one of ${AGGREGATION_STRATEGIES.join(', ')}` })
    .optional()
    .describe(
      "How tokens are fused into entities, as transformers' pipeline: none (one per token, the default), " +
        'or grouped by B-/I- tags with simple, first, average or max',
    ),
  ignore_labels: z
    .array(z.string({ error: 'must be a string' }), { error: 'must be an array of strings' })
    .max(MAX_IGNORE_LABELS, `must hold at most ${MAX_IGNORE_LABELS} labels`)
    .optional()
    .describe('Labels (or entity groups) left out of the answer; default ["O"]'),
};

/** A token-classification request's options. */
export interface TokenClassificationOptions {
  aggregationStrategy: AggregationStrategy;
  ignoreLabels: string[];
}

/**
 * The token-classification options of a request on an endpoint of `task` (undefined for other
 * tasks); INVALID_ARGUMENT naming the field when another task's request sets one.
 */
export function tokenClassificationOptions(
  parameters:
    | { aggregation_strategy?: AggregationStrategy | undefined; ignore_labels?: string[] | undefined }
    | undefined,
  task: ModelTask | undefined,
): TokenClassificationOptions | undefined {
  if (task !== undefined && task !== 'token-classification') {
    for (const field of ['aggregation_strategy', 'ignore_labels'] as const) {
      if (parameters?.[field] !== undefined) {
        throw new ModelgateError(
          ErrorCode.INVALID_ARGUMENT,
          `parameters.${field}: applies to token-classification, not ${task}`,
          { field: `parameters.${field}` },
        );
      }
    }
    return undefined;
  }
  const given = parameters?.aggregation_strategy !== undefined || parameters?.ignore_labels !== undefined;
  if (task === undefined && !given) return undefined;
  return {
    aggregationStrategy: parameters?.aggregation_strategy ?? 'none',
    ignoreLabels: parameters?.ignore_labels ?? ['O'],
  };
}
