import { type z } from 'zod';

/** Adds an issue at `path` for every value of `values` seen before (by `keyOf`). */
export function reportDuplicates<T>(
  ctx: z.RefinementCtx,
  values: readonly T[],
  keyOf: (value: T) => string,
  pathOf: (index: number) => PropertyKey[],
  what: string,
): void {
  const firstIndex = new Map<string, number>();
  values.forEach((value, index) => {
    const key = keyOf(value);
    const first = firstIndex.get(key);
    if (first === undefined) firstIndex.set(key, index);
    else
      ctx.addIssue({
        code: 'custom',
        path: pathOf(index),
        message: `duplicate ${what} '${key}' (first at index ${first})`,
      });
  });
}
