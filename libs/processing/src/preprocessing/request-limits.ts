// The size limits every text body shares (an endpoint's maxBatchItems and maxInputChars), refused
// with PAYLOAD_TOO_LARGE (413) naming the field, in the same words whatever the task.
import { ErrorCode, ModelgateError } from '@modelgate/contracts';

function tooLarge(field: string, message: string): ModelgateError {
  return new ModelgateError(ErrorCode.PAYLOAD_TOO_LARGE, `${field}: ${message}`, { field });
}

/**
 * Refuses a body whose `field` is an array of more than `maxItems` elements. Call it before zod
 * parses the body, so an oversized list is refused without walking every element.
 */
export function checkItemCount(body: unknown, field: string, maxItems: number): void {
  if (typeof body !== 'object' || body === null) return;
  const value: unknown = (body as Record<string, unknown>)[field];
  if (Array.isArray(value) && value.length > maxItems) {
    throw tooLarge(field, `holds ${value.length} texts, more than the limit of ${maxItems}`);
  }
}

/** Refuses a value over `maxChars` UTF-16 code units, naming `field[i]` in a batch, else `field`. */
export function checkTextLengths(
  values: readonly string[],
  field: string,
  batch: boolean,
  maxChars: number,
): void {
  values.forEach((value, i) => {
    if (value.length > maxChars) {
      throw tooLarge(
        batch ? `${field}[${i}]` : field,
        `is ${value.length} characters long, more than the limit of ${maxChars}`,
      );
    }
  });
}
