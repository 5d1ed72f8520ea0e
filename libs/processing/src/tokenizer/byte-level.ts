// GPT-2's byte-level alphabet (byte-level BPE: GPT-2, RoBERTa, BART): every byte is written as one
// printable character, the printable ones as themselves and the rest (controls, space, a few
// Latin-1 marks) as the characters from U+0100 on, in byte order, so " my" is "Ġmy". This reads
// those characters back as bytes, for the offsets of byte-level tokens (token-offsets.ts).

/** Whether byte `b` stands for itself in the alphabet. */
function printable(b: number): boolean {
  return (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
}

/** The alphabet's character of each byte, by byte. */
export const BYTE_LEVEL_ALPHABET: readonly string[] = (() => {
  let shifted = 0;
  return Array.from({ length: 256 }, (_, b) => String.fromCharCode(printable(b) ? b : 256 + shifted++));
})();

/** Byte of each alphabet character (by char code). */
const BYTE_OF_CHAR = new Map(BYTE_LEVEL_ALPHABET.map((char, byte) => [char.charCodeAt(0), byte]));

/** The bytes a byte-level string stands for; undefined when a character is not of the alphabet. */
export function byteLevelBytes(text: string): number[] | undefined {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const byte = BYTE_OF_CHAR.get(text.charCodeAt(i));
    if (byte === undefined) return undefined;
    bytes.push(byte);
  }
  return bytes;
}

/** For each UTF-8 byte of `text`, the UTF-16 index in `text` of the character it belongs to. */
export function unitOfEachByte(text: string): number[] {
  const units: number[] = [];
  let unit = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    const length = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    for (let k = 0; k < length; k++) units.push(unit);
    unit += char.length;
  }
  return units;
}
