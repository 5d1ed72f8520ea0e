// The k highest logits of a row without sorting the row: a size-k min-heap, O(n log k).

/**
 * Ids of the k highest logits of logits[offset .. offset+vocabSize), most likely first (lowest id
 * first on ties; NaN logits are never taken before real ones). Requires 1 <= k <= vocabSize.
 */
export function highestLogitIds(
  logits: Float32Array,
  offset: number,
  vocabSize: number,
  k: number,
): Int32Array {
  const heapIds = new Int32Array(k);
  const heapLogits = new Float64Array(k);
  let size = 0;
  // Heap order: the root is the worst kept candidate (lowest logit, highest id on ties).
  const worse = (a: number, b: number): boolean =>
    heapLogits[a]! < heapLogits[b]! || (heapLogits[a] === heapLogits[b] && heapIds[a]! > heapIds[b]!);
  const swap = (a: number, b: number): void => {
    const id = heapIds[a]!;
    heapIds[a] = heapIds[b]!;
    heapIds[b] = id;
    const logit = heapLogits[a]!;
    heapLogits[a] = heapLogits[b]!;
    heapLogits[b] = logit;
  };
  const siftDown = (start: number): void => {
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < size && worse(left, worst)) worst = left;
      if (right < size && worse(right, worst)) worst = right;
      if (worst === i) return;
      swap(i, worst);
      i = worst;
    }
  };

  for (let id = 0; id < vocabSize; id += 1) {
    const raw = logits[offset + id]!;
    const logit = Number.isNaN(raw) ? -Infinity : raw;
    if (size < k) {
      heapIds[size] = id;
      heapLogits[size] = logit;
      let i = size;
      size += 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!worse(i, parent)) break;
        swap(i, parent);
        i = parent;
      }
    } else if (logit > heapLogits[0]!) {
      // Ids arrive in increasing order: an equal logit never beats the root (lower id kept).
      heapIds[0] = id;
      heapLogits[0] = logit;
      siftDown(0);
    }
  }

  const order = Array.from({ length: size }, (_, i) => i);
  order.sort((a, b) => heapLogits[b]! - heapLogits[a]! || heapIds[a]! - heapIds[b]!);
  return Int32Array.from(order, (i) => heapIds[i]!);
}
