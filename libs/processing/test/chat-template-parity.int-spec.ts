// The prompt ids a chat becomes (our chat template rendering + tokenization without added special
// tokens) against transformers.js' apply_chat_template on the same chat fixture (tiny-gpt2-chat,
// a ChatML template): text and ids exactly, with and without the generation prompt.
import { dirname } from 'node:path';
import { AutoTokenizer, type PreTrainedTokenizer, env } from '@huggingface/transformers';
import { ensureFixture } from '@modelgate/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ChatMessage, type TextTokenizer, loadTokenizerFromDir } from '../src/index.js';

env.allowRemoteModels = false;
env.allowLocalModels = true;

const CHATS: ChatMessage[][] = [
  [{ role: 'user', content: 'Hello there' }],
  [
    { role: 'system', content: 'You answer in French.' },
    { role: 'user', content: 'Where is Zürich? 🤗' },
    { role: 'assistant', content: 'En Suisse.' },
    { role: 'user', content: 'And <|im_end|> written in the text?' },
  ],
  [{ role: 'user', content: '' }],
];

describe('chat templates: our rendering against transformers.js apply_chat_template (tiny-gpt2-chat)', () => {
  let ours: TextTokenizer;
  let theirs: PreTrainedTokenizer;

  beforeAll(async () => {
    const dir = await ensureFixture('tiny-gpt2-chat');
    env.localModelPath = dirname(dir);
    ours = await loadTokenizerFromDir(dir);
    theirs = await AutoTokenizer.from_pretrained('tiny-gpt2-chat', { local_files_only: true });
  });

  for (const [index, messages] of CHATS.entries()) {
    for (const addGenerationPrompt of [true, false]) {
      it(`chat ${index}, add_generation_prompt ${addGenerationPrompt}: same text, same ids`, () => {
        const template = ours.chatTemplate;
        expect(template).toBeDefined();
        const text = template!.render(messages, { addGenerationPrompt });
        const expectedText = theirs.apply_chat_template(messages, {
          tokenize: false,
          add_generation_prompt: addGenerationPrompt,
        });
        expect(text).toBe(expectedText);
        const expectedIds: unknown = theirs.apply_chat_template(messages, {
          add_generation_prompt: addGenerationPrompt,
          return_tensor: false,
          return_dict: false,
        });
        expect(ours.tokenize(text)).toEqual(expectedIds);
        // The turn markers are single special tokens, not spelled out.
        expect((expectedIds as number[]).filter((id) => id === 50257).length).toBeGreaterThanOrEqual(
          messages.length,
        );
      });
    }
  }
});
