// Logits → labels with scores, as transformers.js `pipeline('text-classification')` computes them:
// softmax over the labels, or an independent sigmoid per label for multi-label models and models
// with one output (num_labels 1), and the raw output of a regression model.
import { ErrorCode, ModelgateError } from '@modelgate/contracts';

/** One label and its probability. */
export interface ClassScore {
  label: string;
  score: number;
}

/** Options of {@link classify}. */
export interface ClassifyOptions {
  /** Label names by class index; `LABEL_<i>` where absent (as transformers names them). */
  labels?: readonly string[] | undefined;
  /** Sigmoid per label (multi_label_classification) instead of a softmax over labels. @defaultValue false */
  multiLabel?: boolean | undefined;
  /** problem_type regression: the raw output, as the pipeline's function_to_apply "none". @defaultValue false */
  regression?: boolean | undefined;
  /**
   * The scores' function, as the pipeline's function_to_apply: overrides what `multiLabel`,
   * `regression` and the label count pick (softmax, sigmoid, or none: the logits).
   */
  functionToApply?: 'softmax' | 'sigmoid' | 'none' | undefined;
  /**
   * Labels returned per input, best first; capped at the label count (Infinity: every label).
   * @defaultValue 1 for single-label (the transformers pipeline default), every label for multi-label
   */
  topK?: number | undefined;
}

/** Softmax of `row` (numerically stable: shifted by its maximum), in float64. */
export function softmax(row: ArrayLike<number>): Float64Array {
  const out = new Float64Array(row.length);
  let max = -Infinity;
  for (let i = 0; i < row.length; i++) max = Math.max(max, row[i] ?? -Infinity);
  let sum = 0;
  for (let i = 0; i < row.length; i++) {
    const e = Math.exp((row[i] ?? -Infinity) - max);
    out[i] = e;
    sum += e;
  }
  for (let i = 0; i < out.length; i++) out[i] = (out[i] ?? 0) / sum;
  return out;
}

/** Logistic sigmoid, without overflow for large negative inputs. */
export function sigmoid(x: number): number {
  if (x >= 0) return 1 / (1 + Math.exp(-x));
  const e = Math.exp(x);
  return e / (1 + e);
}

/** Indices of the `k` largest values, largest first; ties keep the lower index first. */
export function topKIndices(values: ArrayLike<number>, k: number): number[] {
  const order = Array.from({ length: values.length }, (_, i) => i);
  order.sort((a, b) => (values[b] ?? 0) - (values[a] ?? 0) || a - b);
  return order.slice(0, Math.max(0, Math.min(k, values.length)));
}

/** Which classification options apply: request top_k, then the endpoint's, then the model's labels and problem type. */
export function resolveClassifyOptions(sources: {
  requestTopK?: number | undefined;
  requestFunction?: ClassifyOptions['functionToApply'];
  postprocessing?: { topK?: number | undefined; multiLabel?: boolean | undefined } | undefined;
  modelLabels?: readonly string[] | undefined;
  modelConfig?:
    | {
        labels?: readonly string[] | undefined;
        multiLabel?: boolean | undefined;
        problemType?: string | undefined;
      }
    | undefined;
}): ClassifyOptions {
  return {
    ...(sources.modelConfig?.problemType === 'regression' ? { regression: true } : {}),
    labels: sources.modelLabels ?? sources.modelConfig?.labels,
    multiLabel: sources.postprocessing?.multiLabel ?? sources.modelConfig?.multiLabel ?? false,
    topK: sources.requestTopK ?? sources.postprocessing?.topK,
    ...(sources.requestFunction === undefined ? {} : { functionToApply: sources.requestFunction }),
  };
}

/**
 * Scores every row of `logits` ([n, labels], row-major): per row the `topK` best labels with
 * softmax (or sigmoid) scores, best first. Throws INTERNAL when dims, data and labels disagree.
 */
export function classify(
  logits: ArrayLike<number>,
  dims: readonly number[],
  options: ClassifyOptions = {},
): ClassScore[][] {
  const [rows, width] = dims;
  if (dims.length !== 2 || rows === undefined || width === undefined || rows * width !== logits.length) {
    throw new ModelgateError(
      ErrorCode.INTERNAL,
      `classifier output has dims [${dims.join(',')}] and ${logits.length} values; expected [batch, labels]`,
    );
  }
  const { labels, multiLabel = false } = options;
  if (labels !== undefined && labels.length !== width) {
    throw new ModelgateError(
      ErrorCode.INTERNAL,
      `the model outputs ${width} scores per input but has ${labels.length} labels`,
    );
  }
  const topK = options.topK ?? (multiLabel ? width : 1);
  const results: ClassScore[][] = [];
  for (let r = 0; r < rows; r++) {
    const row = Array.from({ length: width }, (_, i) => logits[r * width + i] ?? 0);
    // One output: a softmax over it is always 1, so the pipeline takes its sigmoid (or, for a
    // regression model, the value itself).
    const apply =
      options.functionToApply ??
      (options.regression ? 'none' : multiLabel || width === 1 ? 'sigmoid' : 'softmax');
    const scores =
      apply === 'none'
        ? Float64Array.from(row)
        : apply === 'sigmoid'
          ? Float64Array.from(row, sigmoid)
          : softmax(row);
    results.push(
      topKIndices(scores, topK).map((i) => ({ label: labels?.[i] ?? `LABEL_${i}`, score: scores[i] ?? 0 })),
    );
  }
  return results;
}
