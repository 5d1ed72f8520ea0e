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
