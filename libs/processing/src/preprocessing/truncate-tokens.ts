// Truncation of content ids (special tokens excluded) to a token budget, keeping the start of
// each text, as Hugging Face fast tokenizers truncate on the right.
import { ErrorCode, ModelgateError } from '@modelgate/contracts';

/**
 * Lengths the two texts of a pair keep under `budget` content tokens with Hugging Face's
 * `longest_first` strategy (tokenizers' truncation.rs): the shorter text stays whole when the
 * longer can absorb the cut; otherwise both get half, the one that was longer the odd token.
 */
export function longestFirstLengths(first: number, second: number, budget: number): [number, number] {
  if (first + second <= budget) return [first, second];
  const swap = first > second;
  let shorter = swap ? second : first;
  let longer = shorter > budget ? shorter : Math.max(shorter, budget - shorter);
  if (shorter + longer > budget) {
    shorter = Math.floor(budget / 2);
    longer = shorter + (budget % 2);
  }
  return swap ? [longer, shorter] : [shorter, longer];
}

/** Content ids cut to `budget` tokens: single texts keep their start; pairs use longest_first. */
export function truncateContent(
  first: number[],
  second: number[] | undefined,
  budget: number,
): { first: number[]; second: number[] | undefined } {
  if (second === undefined) return { first: first.length > budget ? first.slice(0, budget) : first, second };
  const [keepFirst, keepSecond] = longestFirstLengths(first.length, second.length, budget);
  return {
    first: keepFirst < first.length ? first.slice(0, keepFirst) : first,
    second: keepSecond < second.length ? second.slice(0, keepSecond) : second,
  };
}

/** TOKEN_LIMIT_EXCEEDED (422) for `field`, which has `total` tokens against `limit` with truncation off. */
export function tokenLimitExceeded(field: string, total: number, limit: number): ModelgateError {
  return new ModelgateError(
    ErrorCode.TOKEN_LIMIT_EXCEEDED,
    `${field} has ${total} tokens, more than the limit of ${limit}; shorten it or set parameters.truncation to true`,
    { field },
  );
}
