/**
 * The ModelGenerate messages (modelgate's generation extension of the inference proto), in proto
 * field names (`keepCase: true`, 64-bit integers as JS numbers).
 */

/** One generation request: a tokenized prompt and how to decode it. */
export interface ModelGenerateRequestMessage {
  model_name: string;
  model_version: string;
  id: string;
  input_ids: number[];
  max_new_tokens: number;
  eos_token_ids: number[];
  do_sample: boolean;
  temperature: number;
  top_k: number;
  top_p: number;
  has_seed: boolean;
  seed: number;
  /** image-to-text: one image's FP32 values, little-endian bytes; omitted otherwise. */
  pixel_values?: Uint8Array;
  /** Dims of pixel_values, [channels, height, width]. */
  pixel_values_shape?: number[];
  /** The history-reading processors (0 for each: off). */
  repetition_penalty?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  no_repeat_ngram_size?: number;
  min_new_tokens?: number;
  /** Report each token's log-probability (and top_logprobs alternatives). */
  logprobs?: boolean;
  top_logprobs?: number;
}

/** One token's log-probability and its step's most likely ids with theirs. */
export interface TokenLogprobMessage {
  logprob?: number;
  top_ids?: number[] | null;
  top_logprobs?: number[] | null;
}

/** Tokens of one sequence since the previous message; `finish_reason` set on the last one. */
export interface ModelGenerateResponseMessage {
  model_name?: string;
  model_version?: string;
  id?: string;
  token_ids?: number[] | null;
  finish_reason?: string;
  prompt_tokens?: number;
  generated_tokens?: number;
  queue_micros?: number;
  compute_micros?: number;
  /** With the request's logprobs: one per token id. */
  logprobs?: TokenLogprobMessage[] | null;
}
