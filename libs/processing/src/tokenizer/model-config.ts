// Facts the gateway needs from a Hugging Face config.json: label names, the classification
// problem type, and the longest sequence the model's position embeddings allow.

/** What config.json says about a model's outputs and limits. */
export interface ModelConfigFacts {
  /** Label names by class index (id2label), e.g. ['NEGATIVE', 'POSITIVE']; undefined when absent. */
  labels?: string[];
  /** config.json `problem_type`, e.g. 'single_label_classification' or 'multi_label_classification'. */
  problemType?: string;
  /** True when problem_type is multi_label_classification: scores are independent sigmoids. */
  multiLabel: boolean;
  /** `max_position_embeddings`: the longest sequence, in tokens, the model accepts. */
  maxPositionEmbeddings?: number;
}

// Bounds the label list a malformed id2label could make us allocate.
const MAX_LABELS = 100_000;

function isPositiveInt(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

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

/** Reads labels, problem type and maximum length from a parsed config.json; unknown shapes are ignored. */
export function readModelConfig(config: unknown): ModelConfigFacts {
  if (typeof config !== 'object' || config === null) return { multiLabel: false };
  const json = config as Record<string, unknown>;
  const labels = labelsOf(json.id2label);
  const problemType = typeof json.problem_type === 'string' ? json.problem_type : undefined;
  const maxPositionEmbeddings = isPositiveInt(json.max_position_embeddings)
    ? json.max_position_embeddings
    : undefined;
  return {
    ...(labels === undefined ? {} : { labels }),
    ...(problemType === undefined ? {} : { problemType }),
    multiLabel: problemType === 'multi_label_classification',
    ...(maxPositionEmbeddings === undefined ? {} : { maxPositionEmbeddings }),
  };
}
