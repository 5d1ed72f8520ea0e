/**
 * The answers of the TEI-compatible routes, shaped as Text Embeddings Inference shapes them
 * (router/src/http/types.rs) from the gateway's own results. Pure: no I/O.
 */
import {
  type EndpointSpec,
  MODELGATE_VERSION,
  type ModelSpec,
  resolvedMaxBatchSize,
} from '@modelgate/contracts';
import { type ClassScore, type TokenizedText, shortenEmbedding } from '@modelgate/processing';
import { type TeiEmbedCall } from './tei-requests.js';

/** /embed: each pooled vector cut to `dimensions` (when asked) and then normalized (when asked). */
export function teiEmbeddings(predictions: readonly unknown[], call: TeiEmbedCall): number[][] {
  return predictions.map((prediction) =>
    shortenEmbedding((prediction as { embedding: number[] }).embedding, call.dimensions, call.normalize),
  );
}

/** /embed_all: every token's vector of each input. */
export function teiTokenEmbeddings(predictions: readonly unknown[]): number[][][] {
  return predictions.map((prediction) => (prediction as { token_embeddings: number[][] }).token_embeddings);
}

/** One label of /predict. */
export interface TeiPrediction {
  score: number;
  label: string;
}

/** /predict's labels of one input, best first (every label). */
export function teiPrediction(labels: readonly ClassScore[]): TeiPrediction[] {
  return labels.map(({ label, score }) => ({ score, label }));
}

/** One token of /tokenize, as TEI's SimpleToken: UTF-8 byte offsets into the input. */
export interface TeiToken {
  id: number;
  text: string;
  special: boolean;
  start: number | null;
  stop: number | null;
}

/** UTF-8 byte offset of each code-point index of `text` (and of its end). */
function byteOffsets(text: string): number[] {
  const offsets = [0];
  let bytes = 0;
  for (const char of text) {
    const point = char.codePointAt(0) ?? 0;
    bytes += point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
    offsets.push(bytes);
  }
  return offsets;
}

/**
 * /tokenize's tokens of one input: a special token (no offsets) is its vocabulary token; any other
 * is the slice of `text` it came from, with start and stop in UTF-8 bytes as TEI counts them.
 */
export function teiTokens(text: string, tokenized: TokenizedText): TeiToken[] {
  const points = Array.from(text);
  const bytes = byteOffsets(text);
  return tokenized.ids.map((id, index) => {
    const span = tokenized.offsets[index];
    if (span === null || span === undefined || tokenized.sequence_ids[index] === null) {
      return { id, text: tokenized.tokens[index] ?? '', special: true, start: null, stop: null };
    }
    const [start, end] = span;
    return {
      id,
      text: points.slice(start, end).join(''),
      special: false,
      start: bytes[start] ?? null,
      stop: bytes[end] ?? null,
    };
  });
}

/** What /info reports beside the endpoint and model. */
export interface TeiInfoFacts {
  /** Longest input in tokens: the endpoint's maxTokens, else the tokenizer's. */
  maxInputLength: number;
  /** Labels by index (classifier and reranker). */
  labels: readonly string[];
  /** The gateway's event loops, which tokenize. */
  tokenizationWorkers: number;
}

/** TEI's /info for `endpoint` served by `model`. */
export function teiInfo(
  endpoint: EndpointSpec,
  model: ModelSpec,
  facts: TeiInfoFacts,
): Record<string, unknown> {
  const id2label = Object.fromEntries(facts.labels.map((label, index) => [String(index), label]));
  const label2id = Object.fromEntries(facts.labels.map((label, index) => [label, index]));
  const modelType =
    model.task === 'feature-extraction'
      ? { embedding: { pooling: endpoint.postprocessing.pooling } }
      : model.task === 'text-ranking'
        ? { reranker: { id2label, label2id } }
        : { classifier: { id2label, label2id } };
  return {
    model_id: model.id,
    model_sha: null,
    model_dtype: 'float32',
    served_model_name: endpoint.name,
    model_type: modelType,
    max_concurrent_requests: model.batching.maxQueueSize,
    max_input_length: facts.maxInputLength,
    max_batch_tokens: model.batching.maxBatchTokens,
    max_batch_requests: resolvedMaxBatchSize(model),
    max_client_batch_size: endpoint.preprocessing.maxBatchItems,
    auto_truncate: endpoint.preprocessing.truncation,
    tokenization_workers: facts.tokenizationWorkers,
    version: MODELGATE_VERSION,
    sha: null,
    docker_label: null,
  };
}
