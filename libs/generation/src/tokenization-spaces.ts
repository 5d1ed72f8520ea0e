// `clean_up_tokenization_spaces`: the clean-up Hugging Face tokenizers apply to decoded text by
// default (tokenizer_config.json's flag, true when absent): a space is dropped before . ? ! , and
// before the contractions n't 'm 's 've 're, and " ' " becomes "'". Each rule is one left-to-right
// replace-all over the text, in that order. The stream form cleans text deltas as they arrive and
// gives, concatenated, exactly the clean-up of the whole text.

/** The rules, in the order they apply: each pattern starts with the space it drops. */
const RULES: ReadonlyArray<readonly [string, string]> = [
  [' .', '.'],
  [' ?', '?'],
  [' !', '!'],
  [' ,', ','],
  [" ' ", "'"],
  [" n't", "n't"],
  [" 'm", "'m"],
  [" 's", "'s"],
  [" 've", "'ve"],
  [" 're", "'re"],
];

/** The longest pattern, in characters. */
const LONGEST = Math.max(...RULES.map(([pattern]) => pattern.length));

/** `text` with the tokenizers' clean-up applied. */
export function cleanUpTokenizationSpaces(text: string): string {
  let out = text;
  for (const [pattern, replacement] of RULES) out = out.replaceAll(pattern, replacement);
  return out;
}

/**
 * The clean-up of a text that arrives in pieces. A piece's tail that may begin a pattern (from a
 * space among its last LONGEST - 1 characters), and any pattern across that point, wait for the
 * next piece; `flush` cleans what is left at the end.
 */
export class TokenizationSpacesCleaner {
  private held = '';

  /** Adds `piece`; returns the cleaned text that no later piece can change. */
  push(piece: string): string {
    const text = this.held + piece;
    const cut = stableEnd(text);
    this.held = text.slice(cut);
    return cleanUpTokenizationSpaces(text.slice(0, cut));
  }

  /** The cleaned rest, at the end of the text. */
  flush(): string {
    const rest = cleanUpTokenizationSpaces(this.held);
    this.held = '';
    return rest;
  }
}

/**
 * Where `text` can be cut so that cleaning each side alone equals cleaning the whole, whatever
 * follows: before the first space of its last LONGEST - 1 characters (a pattern may start there and
 * end in text still to come), moved back before any pattern that would straddle the cut, and
 * before what a " ' " the held text may begin would join. That is the one rule whose output makes
 * another's pattern: " ' " becomes "'", so "  ' re" cleans to "'re" and " n ' t" to "n't"; cut
 * after the first space, or after " n", the halves kept them (" 're", " n't").
 */
function stableEnd(text: string): number {
  let cut = text.length;
  for (let i = Math.max(0, text.length - (LONGEST - 1)); i < text.length; i++) {
    if (text[i] === ' ') {
      cut = i;
      break;
    }
  }
  for (let moved = true; moved;) {
    moved = false;
    for (let start = Math.max(0, cut - (LONGEST - 1)); start < cut; start++) {
      if (RULES.some(([pattern]) => start + pattern.length > cut && text.startsWith(pattern, start))) {
        cut = start;
        moved = true;
        break;
      }
    }
    // What is held starts with a space, which may yet begin a " ' ": its "'" then joins what is
    // before it, a space (" 're") or " n" (" n't"), which must wait with it. Check again after.
    if (!moved && cut < text.length) {
      if (cut >= 1 && text[cut - 1] === ' ') cut -= 1;
      else if (cut >= 2 && text[cut - 1] === 'n' && text[cut - 2] === ' ') cut -= 2;
      else continue;
      moved = true;
    }
  }
  return cut;
}
