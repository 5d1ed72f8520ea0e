// How joining sequences are split into prefill runs of bounded size.

/**
 * Most prompt positions (rows × longest prompt) one prefill run takes. An export with past
 * computes logits at every position, [rows, width, vocab] floats (about 100 MB at GPT-2's vocab):
 * joiners beyond it are prefilled in further runs before the next decode step.
 */
export const PREFILL_TOKEN_BUDGET = 512;

/** Splits `items`, in order, into groups whose count × longest length stays within `budget` (a longer one goes alone). */
export function prefillGroups<T>(items: readonly T[], length: (item: T) => number, budget: number): T[][] {
  const groups: T[][] = [];
  let group: T[] = [];
  let longest = 0;
  for (const item of items) {
    const width = Math.max(longest, length(item));
    if (group.length > 0 && (group.length + 1) * width > budget) {
      groups.push(group);
      group = [];
      longest = 0;
    }
    group.push(item);
    longest = Math.max(longest, length(item));
  }
  if (group.length > 0) groups.push(group);
  return groups;
}
