// A text stream whose pieces add up to the whole text trimmed (String.prototype.trim): what
// transformers.js' image-to-text pipeline returns, sent as it is generated. Leading whitespace is
// never sent; whitespace after text is held back until more text follows it, and dropped at the end.

/** Whitespace as String.prototype.trim removes it (`\s`: WhiteSpace and LineTerminator). */
const LEADING_WHITESPACE = /^\s+/;
const TRAILING_WHITESPACE = /\s+$/;

/** Turns text pieces into pieces of the trimmed whole. */
export class TrimmedTextStream {
  private started = false;
  /** Whitespace after the last text sent, not sent yet. */
  private held = '';

  /** Adds the next piece; returns what can be sent of it (possibly ''). */
  push(piece: string): string {
    let text = this.held + piece;
    if (!this.started) {
      text = text.replace(LEADING_WHITESPACE, '');
      if (text === '') return '';
      this.started = true;
    }
    const tail = TRAILING_WHITESPACE.exec(text);
    this.held = tail ? tail[0] : '';
    return tail ? text.slice(0, tail.index) : text;
  }

  /** Ends the text: the held trailing whitespace is dropped, so this returns ''. */
  flush(): string {
    this.held = '';
    return '';
  }
}
