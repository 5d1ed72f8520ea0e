// Incremental detokenization (the method of Hugging Face's text-generation-inference): the text
// of the newest ids is the difference between decode(ids[prefix..]) and decode(ids[prefix..read]),
// emitted only once it no longer ends in U+FFFD (a character whose bytes are not all there yet).

const REPLACEMENT_CHARACTER = '\uFFFD';

/** Turns generated ids into text deltas that never split a multi-byte character. */
export class IncrementalDecoder {
  private readonly ids: number[] = [];
  /** Start of the ids decoded for context (the last emitted chunk). */
  private prefixOffset = 0;
  /** End of the ids whose text was emitted. */
  private readOffset = 0;

  /** @param decode - the tokenizer's decode of a run of ids (byte-level: lossy UTF-8, U+FFFD for incomplete bytes) */
  constructor(private readonly decode: (ids: readonly number[]) => string) {}

  /** Adds generated ids; returns the text they completed: never ends in the middle of a character (held back while the decoded tail ends with U+FFFD). */
  push(ids: readonly number[]): string {
    for (const id of ids) this.ids.push(id);
    const { prefixText, text } = this.pending();
    if (text.length <= prefixText.length || text.endsWith(REPLACEMENT_CHARACTER)) return '';
    this.advance();
    return text.slice(prefixText.length);
  }

  /** The text still held back (at the end of the sequence), possibly with U+FFFD. */
  flush(): string {
    const { prefixText, text } = this.pending();
    this.advance();
    return text.slice(prefixText.length);
  }

  private pending(): { prefixText: string; text: string } {
    if (this.readOffset === this.ids.length) return { prefixText: '', text: '' };
    return {
      prefixText: this.decode(this.ids.slice(this.prefixOffset, this.readOffset)),
      text: this.decode(this.ids.slice(this.prefixOffset)),
    };
  }

  private advance(): void {
    this.prefixOffset = this.readOffset;
    this.readOffset = this.ids.length;
  }
}
