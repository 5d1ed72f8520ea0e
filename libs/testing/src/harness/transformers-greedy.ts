// The reference oracle of text generation (DESIGN §5): @huggingface/transformers' text-generation
// pipeline, greedy, on a fixture directory loaded as a local model. The library is imported lazily,
// so this package's entry point loads without it (it is a root devDependency, absent from images).
import { basename, dirname } from 'node:path';
import type { TextGenerationPipeline } from '@huggingface/transformers';

/** What transformers.js generated after the prompt. */
export interface GreedyGeneration {
  /** The generated token ids, prompt excluded (ending with eos 50256 when generation stopped on it). */
  tokenIds: number[];
  /** The pipeline's `generated_text` with `return_full_text: false` (special tokens skipped). */
  text: string;
}

const pipelines = new Map<string, Promise<TextGenerationPipeline>>();

/** One pipeline per fixture directory, loaded from disk only (no hub access). */
async function pipelineFor(fixtureDir: string): Promise<TextGenerationPipeline> {
  let loading = pipelines.get(fixtureDir);
  if (loading === undefined) {
    loading = (async () => {
      const { env, pipeline } = await import('@huggingface/transformers');
      env.allowRemoteModels = false;
      env.allowLocalModels = true;
      env.localModelPath = dirname(fixtureDir);
      return pipeline('text-generation', basename(fixtureDir), { dtype: 'fp32', local_files_only: true });
    })();
    pipelines.set(fixtureDir, loading);
    loading.catch(() => pipelines.delete(fixtureDir));
  }
  return loading;
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
): Promise<GreedyGeneration> {
  const generator = await pipelineFor(fixtureDir);
  const options = { do_sample: false, max_new_tokens: maxNewTokens };
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
