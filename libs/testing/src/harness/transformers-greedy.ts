// The reference oracle of text generation (DESIGN §5): @huggingface/transformers' text-generation
// and image-to-text pipelines, greedy, on a fixture directory loaded as a local model. The library
// is imported lazily, so this package's entry point loads without it (it is a root devDependency,
// absent from images).
import { basename, dirname } from 'node:path';
import type { ImageToTextPipeline, TextGenerationPipeline } from '@huggingface/transformers';
import { type RgbImage } from './image-requests.js';

/** What transformers.js generated after the prompt. */
export interface GreedyGeneration {
  /** The generated token ids, prompt excluded (ending with eos 50256 when generation stopped on it). */
  tokenIds: number[];
  /** The pipeline's `generated_text` with `return_full_text: false` (special tokens skipped). */
  text: string;
}

/** What transformers.js captioned. */
export interface GreedyCaption {
  /** The generated token ids, decoder_start_token_id excluded (ending with eos 50256 when generation stopped on it). */
  tokenIds: number[];
  /** The pipeline's `generated_text` (special tokens skipped, trimmed). */
  text: string;
}

type Pipelines = { 'text-generation': TextGenerationPipeline; 'image-to-text': ImageToTextPipeline };

const pipelines = new Map<string, Promise<Pipelines[keyof Pipelines]>>();

/** One pipeline per task and fixture directory, loaded from disk only (no hub access). */
async function pipelineFor<Task extends keyof Pipelines>(
  task: Task,
  fixtureDir: string,
): Promise<Pipelines[Task]> {
  const key = `${task}:${fixtureDir}`;
  let loading = pipelines.get(key);
  if (loading === undefined) {
    loading = (async () => {
      const { env, pipeline } = await import('@huggingface/transformers');
      env.allowRemoteModels = false;
      env.allowLocalModels = true;
      env.localModelPath = dirname(fixtureDir);
      return pipeline(task, basename(fixtureDir), { dtype: 'fp32', local_files_only: true });
    })();
    pipelines.set(key, loading);
    loading.catch(() => pipelines.delete(key));
  }
  return loading as Promise<Pipelines[Task]>;
}

/**
 * Runs transformers.js `pipeline('text-generation')` greedily (`do_sample: false`,
 * `max_new_tokens`) on the fixture in `fixtureDir` (e.g. `await ensureFixture('tiny-gpt2')`) and
 * returns the generated ids and text. Generation stops early at the model's eos token.
 */
export async function transformersGreedy(
  fixtureDir: string,
  prompt: string,
  maxNewTokens: number,
  /** More generation options (repetition_penalty, no_repeat_ngram_size, min_new_tokens, …). */
  extra: Readonly<Record<string, number>> = {},
): Promise<GreedyGeneration> {
  const generator = await pipelineFor('text-generation', fixtureDir);
  const options = { ...extra, do_sample: false, max_new_tokens: maxNewTokens };
  const [output] = (await generator(prompt, { ...options, return_full_text: false })) as {
    generated_text: string;
  }[];
  // The pipeline returns text only: the ids come from the same generate call it makes.
  const inputs = generator.tokenizer(prompt, { add_special_tokens: false, padding: true, truncation: true });
  const sequences = await generator.model.generate({ ...inputs, ...options });
  const all = (sequences as { tolist(): (number | bigint)[][] }).tolist()[0] ?? [];
  const promptLength = (inputs.input_ids as { dims: number[] }).dims.at(-1) ?? 0;
  return { tokenIds: all.slice(promptLength).map(Number), text: output?.generated_text ?? '' };
}

/**
 * Runs transformers.js `pipeline('text-generation')` greedily on a conversation: the pipeline
 * renders `messages` with the fixture's chat template (add_generation_prompt) and answers the
 * assistant's reply. Returns the reply's text (special tokens skipped) and the generated ids
 * (ending with an eos id when generation stopped on one), and the prompt's ids and length in tokens.
 */
export async function transformersChatGreedy(
  fixtureDir: string,
  messages: readonly { role: string; content: string }[],
  maxNewTokens: number,
): Promise<GreedyGeneration & { promptTokens: number; promptIds: number[] }> {
  const generator = await pipelineFor('text-generation', fixtureDir);
  const options = { do_sample: false, max_new_tokens: maxNewTokens };
  const chat = messages.map((message) => ({ ...message }));
  const [output] = (await generator(chat, options)) as {
    generated_text: { role: string; content: string }[];
  }[];
  const reply = output?.generated_text.at(-1);
  // The pipeline returns the conversation only: the ids come from the same generate call it makes.
  const inputs = generator.tokenizer.apply_chat_template(chat, {
    add_generation_prompt: true,
    return_dict: true,
  }) as Record<string, unknown>;
  const sequences = await generator.model.generate({ ...inputs, ...options });
  const all = (sequences as { tolist(): (number | bigint)[][] }).tolist()[0] ?? [];
  const promptTokens = (inputs.input_ids as { dims: number[] }).dims.at(-1) ?? 0;
  return {
    tokenIds: all.slice(promptTokens).map(Number),
    text: reply?.role === 'assistant' ? reply.content : '',
    promptTokens,
    promptIds: all.slice(0, promptTokens).map(Number),
  };
}

/** Each id's text as the fixture's tokenizer decodes it alone in transformers.js (special tokens shown). */
export async function transformersTokenTexts(fixtureDir: string, ids: readonly number[]): Promise<string[]> {
  const generator = await pipelineFor('text-generation', fixtureDir);
  return ids.map((id) => generator.tokenizer.decode([id]));
}

/** The fixture's own image processor (preprocessor_config.json) applied to one image: pixel_values [channels, size, size]. */
export async function transformersPixelValues(fixtureDir: string, image: RgbImage): Promise<Float32Array> {
  const captioner = await pipelineFor('image-to-text', fixtureDir);
  const { RawImage } = await import('@huggingface/transformers');
  const { pixel_values: pixels } = (await captioner.processor(
    new RawImage(image.data, image.width, image.height, 3),
  )) as { pixel_values: { data: Float32Array } };
  return pixels.data;
}

/**
 * Runs transformers.js `pipeline('image-to-text')` greedily (`do_sample: false`, `max_new_tokens`)
 * on the captioner in `fixtureDir` (e.g. `await ensureFixture('tiny-vit-gpt2')`) and returns the
 * generated ids and text. Generation stops early at the model's eos token.
 */
export async function transformersCaption(
  fixtureDir: string,
  image: RgbImage,
  maxNewTokens: number,
): Promise<GreedyCaption> {
  const captioner = await pipelineFor('image-to-text', fixtureDir);
  const { RawImage } = await import('@huggingface/transformers');
  const raw = new RawImage(image.data, image.width, image.height, 3);
  const options = { do_sample: false, max_new_tokens: maxNewTokens };
  const [output] = (await captioner(raw, options)) as { generated_text: string }[];
  // The pipeline returns text only: the ids come from the same generate call it makes.
  const { pixel_values: pixels } = (await captioner.processor(raw)) as { pixel_values: unknown };
  const sequences = await captioner.model.generate({ inputs: pixels, ...options } as never);
  const all = (sequences as { tolist(): (number | bigint)[][] }).tolist()[0] ?? [];
  return { tokenIds: all.slice(1).map(Number), text: output?.generated_text ?? '' };
}
