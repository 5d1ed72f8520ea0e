/**
 * Buffer ownership across the session thread boundary. A structured clone of a typed array copies
 * its whole ArrayBuffer, which for a view into a gRPC message is the message (or a pooled slab),
 * not just the tensor. So tensors cross threads only in buffers that hold nothing else, and those
 * buffers are transferred, not cloned: after `postMessage` the sender's views are detached.
 */

/** The distinct ArrayBuffers behind `tensors` (string tensors and shared memory have none). */
export function transferableBuffers(tensors: Iterable<{ data: unknown }>): Set<ArrayBuffer> {
  const buffers = new Set<ArrayBuffer>();
  for (const { data } of tensors) {
    if (ArrayBuffer.isView(data) && data.buffer instanceof ArrayBuffer) buffers.add(data.buffer);
  }
  return buffers;
}

/** True when `data` is the only thing in its ArrayBuffer, so transferring it loses nothing else. */
export function ownsItsBuffer(data: unknown): boolean {
  return (
    ArrayBuffer.isView(data) &&
    data.buffer instanceof ArrayBuffer &&
    data.byteOffset === 0 &&
    data.byteLength === data.buffer.byteLength
  );
}

/** %TypedArray%.prototype.slice: copies for every typed array, Node's Buffer (whose slice is a view) included. */
const typedArraySlice = (Object.getPrototypeOf(Int8Array.prototype) as { slice: (this: unknown) => unknown })
  .slice;

/** Tensors as they are posted to another thread, and the buffers to transfer with them. */
export interface TransferPlan<T> {
  tensors: Record<string, T>;
  transfer: ArrayBuffer[];
}

/**
 * Gets `tensors` ready to cross a thread boundary with at most one copy each: data alone in its
 * ArrayBuffer is transferred as it is (the caller hands it over: its views read as empty once
 * posted), a view into a larger buffer (a gRPC message, a request's other rows) is copied once into
 * a buffer of its own and that copy is transferred, so the caller's buffer stays whole. Anything
 * else (strings, shared memory) is cloned by postMessage as usual.
 */
export function planTransfer<T extends { data: unknown }>(tensors: Record<string, T>): TransferPlan<T> {
  const planned: Record<string, T> = {};
  const transfer = new Set<ArrayBuffer>();
  for (const [name, tensor] of Object.entries(tensors)) {
    let { data } = tensor;
    if (ArrayBuffer.isView(data) && !(data instanceof DataView) && !ownsItsBuffer(data)) {
      data = typedArraySlice.call(data);
    }
    if (ArrayBuffer.isView(data) && data.buffer instanceof ArrayBuffer) transfer.add(data.buffer);
    planned[name] = data === tensor.data ? tensor : { ...tensor, data };
  }
  return { tensors: planned, transfer: [...transfer] };
}

/**
 * True when `data`'s buffer went to another thread (transferred, so now empty) though `dims` want
 * values: a tensor handed over once must not be fed again.
 */
export function isDetached(data: unknown, dims: readonly number[]): boolean {
  return (
    ArrayBuffer.isView(data) &&
    data.buffer.byteLength === 0 &&
    dims.reduce((count, dim) => count * dim, 1) > 0
  );
}
