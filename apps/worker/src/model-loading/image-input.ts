/**
 * The size of an image model's `pixel_values`: the graph's own dims where they are static, the
 * image processor's output (ModelSpec.image, read by preparation) where they are dynamic, as
 * Optimum exports them. Warm-up fabricates an image of this size and requests are checked against it.
 */
import { type ImageFacts } from '@modelgate/contracts';

/**
 * [channels, height, width] of `declared` (a [batch, C, H, W] input, -1 where dynamic) with its
 * dynamic dims taken from `facts`; dims neither gives stay -1. Gives an error message when a
 * static dim and the image processor disagree.
 */
export function resolveImageDims(
  declared: readonly number[],
  facts: ImageFacts | undefined,
): number[] | string {
  const [, ...graph] = declared;
  if (facts === undefined) return graph;
  const processor = [facts.channels, facts.height, facts.width];
  if (graph.some((dim, axis) => dim >= 0 && dim !== processor[axis])) {
    return (
      `the image processor (preprocessor_config.json) makes ${processor.join('×')} pixel_values but the ` +
      `graph takes ${graph.map((dim) => (dim >= 0 ? dim : '?')).join('×')}`
    );
  }
  return graph.map((dim, axis) => (dim >= 0 ? dim : processor[axis]!));
}
