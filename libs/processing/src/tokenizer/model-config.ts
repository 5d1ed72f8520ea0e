// Facts the gateway needs from a Hugging Face config.json: label names, the classification
// problem type, the longest sequence the model's position embeddings allow, and (decoders) the
// end-of-sequence ids generation stops at.

import { asJsonObject, isPositiveInt } from '@modelgate/generation';

/** What config.json says about a model's outputs and limits. */
export interface ModelConfigFacts {
  /** Label names by class index (id2label), e.g. ['NEGATIVE', 'POSITIVE']; undefined when absent. */
  labels?: string[];
  /** config.json `problem_type`, e.g. 'single_label_classification' or 'multi_label_classification'. */
  problemType?: string;
  /** True when problem_type is multi_label_classification: scores are independent sigmoids. */
  multiLabel: boolean;
  /** `max_position_embeddings` (GPT-2: `n_positions`): the longest sequence, in tokens, the model accepts. */
  maxPositionEmbeddings?: number;
  /** `eos_token_id` (int or list) of generation_config.json, else of config.json: ids that end a generation. */
  eosTokenIds?: number[];
}

// Bounds the label list a malformed id2label could make us allocate.
const MAX_LABELS = 100_000;

/**
 * Label names in class-index order from `id2label` ({"0": "NEGATIVE", ...}); an index missing from
 * the map reads `LABEL_<i>`, as transformers names it.
 */
function labelsOf(id2label: unknown): string[] | undefined {
  if (typeof id2label !== 'object' || id2label === null || Array.isArray(id2label)) return undefined;
  const byIndex = new Map<number, string>();
  for (const [key, value] of Object.entries(id2label)) {
    const index = Number(key);
    const plausible = Number.isSafeInteger(index) && index >= 0 && index < MAX_LABELS;
    if (plausible && typeof value === 'string') byIndex.set(index, value);
  }
  if (byIndex.size === 0) return undefined;
  const count = Math.max(...byIndex.keys()) + 1;
  return Array.from({ length: count }, (_, index) => byIndex.get(index) ?? `LABEL_${index}`);
}

/** `eos_token_id` as a list of ids (transformers accepts an int or a list); undefined when absent or malformed. */
function eosIdsOf(value: unknown): number[] | undefined {
  const ids = Array.isArray(value) ? value : [value];
  const valid = ids.every((id) => typeof id === 'number' && Number.isSafeInteger(id) && id >= 0);
  return valid && ids.length > 0 ? (ids as number[]) : undefined;
}

/**
 * Reads labels, problem type, maximum length and EOS ids from a parsed config.json (and
 * generation_config.json, which wins for EOS as in transformers); unknown shapes are ignored.
 */
export function readModelConfig(config: unknown, generationConfig?: unknown): ModelConfigFacts {
  const json = asJsonObject(config) ?? {};
  const labels = labelsOf(json.id2label);
  const problemType = typeof json.problem_type === 'string' ? json.problem_type : undefined;
  const positions = [json.max_position_embeddings, json.n_positions].find(isPositiveInt);
  const eosTokenIds = eosIdsOf(asJsonObject(generationConfig)?.eos_token_id) ?? eosIdsOf(json.eos_token_id);
  return {
    ...(labels === undefined ? {} : { labels }),
    ...(problemType === undefined ? {} : { problemType }),
    multiLabel: problemType === 'multi_label_classification',
    ...(positions === undefined ? {} : { maxPositionEmbeddings: positions }),
    ...(eosTokenIds === undefined ? {} : { eosTokenIds }),
  };
}
