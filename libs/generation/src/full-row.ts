// Sampling over a whole row of logits (no top_k), in a few linear passes and without sorting the
// row: one exp per token, and for top_p a histogram of log-probabilities that finds the nucleus,
// so that only the tokens of one narrow bucket are ever sorted.
import { expNegative } from './fast-exp.js';

/** Width of a histogram bucket, in nats of log-probability below the best token. */
const BUCKETS_PER_NAT = 16;
/** Buckets; the last one also holds every token more than 64 nats below the best. */
const BUCKET_COUNT = 64 * BUCKETS_PER_NAT;

// Scratch space shared by all samplers: pick() is synchronous, so one row at a time uses it.
let weights = new Float64Array(0);
let buckets = new Uint16Array(0);
const bucketSums = new Float64Array(BUCKET_COUNT);

function scratch(vocabSize: number): void {
  if (weights.length < vocabSize) {
    weights = new Float64Array(vocabSize);
    buckets = new Uint16Array(vocabSize);
  }
}

/**
 * Fills `weights` with exp((logit - max) / temperature) (0 for -Infinity and NaN) and returns
 * their sum; `max` is the row's highest logit, finite.
 */
function fillWeights(
  logits: Float32Array,
  offset: number,
  vocabSize: number,
  max: number,
  temperature: number,
): number {
  scratch(vocabSize);
  const out = weights;
  let total = 0;
  for (let i = 0; i < vocabSize; i += 1) {
    const weight = expNegative((max - logits[offset + i]!) / temperature);
    out[i] = weight;
    total += weight;
  }
  return total;
}

/** Draws from the softmax of the whole row (u uniform in [0, 1)). */
export function drawFromRow(
  logits: Float32Array,
  offset: number,
  vocabSize: number,
  max: number,
  temperature: number,
  u: number,
): number {
  const total = fillWeights(logits, offset, vocabSize, max, temperature);
  const out = weights;
  let target = u * total;
  let last = -1;
  for (let i = 0; i < vocabSize; i += 1) {
    const w = out[i]!;
    if (w === 0) continue;
    last = i;
    target -= w;
    if (target < 0) return i;
  }
  return last;
}

/**
 * Draws from the nucleus of the row: the smallest set of most likely tokens (lowest id first on
 * ties) whose probabilities add up to at least topP, renormalized; at least one token.
 */
export function drawFromNucleus(
  logits: Float32Array,
  offset: number,
  vocabSize: number,
  max: number,
  temperature: number,
  topP: number,
  u: number,
): number {
  scratch(vocabSize);
  const out = weights;
  const outBuckets = buckets;
  bucketSums.fill(0);
  let total = 0;
  for (let i = 0; i < vocabSize; i += 1) {
    // z: nats below the best token; a higher logit never lands in a later bucket than a lower one.
    const z = (max - logits[offset + i]!) / temperature;
    const w = expNegative(z);
    if (w === 0) {
      out[i] = 0;
      continue;
    }
    const bucket = z < BUCKET_COUNT / BUCKETS_PER_NAT ? Math.floor(z * BUCKETS_PER_NAT) : BUCKET_COUNT - 1;
    out[i] = w;
    outBuckets[i] = bucket;
    bucketSums[bucket]! += w;
    total += w;
  }

  // The bucket where the running sum (most likely first) reaches topP of the total.
  const wanted = total * topP;
  let before = 0;
  let boundary = 0;
  while (boundary < BUCKET_COUNT - 1 && before + bucketSums[boundary]! < wanted) {
    before += bucketSums[boundary]!;
    boundary += 1;
  }

  // Sort the boundary bucket alone and keep its shortest prefix that reaches topP.
  const members: number[] = [];
  for (let i = 0; i < vocabSize; i += 1) if (weights[i]! > 0 && buckets[i] === boundary) members.push(i);
  members.sort((a, b) => logits[offset + b]! - logits[offset + a]! || a - b);
  let kept = before;
  let lastId = members[0] ?? -1;
  for (const id of members) {
    kept += weights[id]!;
    lastId = id;
    if (kept >= wanted) break;
  }
  const lastLogit = lastId < 0 ? -Infinity : logits[offset + lastId]!;

  // Draw among buckets before the boundary plus the kept prefix of the boundary bucket.
  let target = u * kept;
  let last = lastId;
  for (let i = 0; i < vocabSize; i += 1) {
    const w = weights[i]!;
    if (w === 0) continue;
    const bucket = buckets[i]!;
    if (bucket > boundary) continue;
    if (bucket === boundary) {
      const logit = logits[offset + i]!;
      if (logit < lastLogit || (logit === lastLogit && i > lastId)) continue;
    }
    last = i;
    target -= w;
    if (target < 0) return i;
  }
  return last;
}
