import { type RegisterModelRequest } from '@modelgate/contracts';

/** A request body as a stream, with the content type it is sent with. */
export interface StreamedBody {
  stream: ReadableStream<Uint8Array>;
  contentType: string;
}

/** Whether `body` is a StreamedBody. */
export function isStreamedBody(body: unknown): body is StreamedBody {
  return typeof body === 'object' && body !== null && (body as StreamedBody).stream instanceof ReadableStream;
}

/**
 * `body` encoded as a request body stream that calls `onBytes(total so far)` as chunks are read,
 * with the content type (a multipart boundary for FormData) it must be sent with.
 */
export function countingBody(body: FormData, onBytes: (sentBytes: number) => void): StreamedBody {
  const encoded = new Request('http://upload.invalid/', { method: 'POST', body });
  const contentType = encoded.headers.get('content-type') ?? 'multipart/form-data';
  let sent = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      sent += chunk.byteLength;
      onBytes(sent);
      controller.enqueue(chunk);
    },
  });
  return { stream: encoded.body!.pipeThrough(counter), contentType };
}

/** The settings an upload sends as form fields: a registration without its files. */
export type ModelUploadSettings = Omit<
  RegisterModelRequest,
  'artifact' | 'tokenizer' | 'externalData' | 'source'
>;

/** One file of an upload: the name the registry knows it by (`model.onnx`, `tokenizer.json`, ...) and its bytes. */
export interface ModelUploadFile {
  name: string;
  /** A Blob backed by the file on disk (`openAsBlob`) streams instead of being read into memory. */
  blob: Blob;
}

/**
 * The multipart form of `POST /v1/models/upload`: settings as fields (labels, batching and runtime
 * as JSON), then each file under its name.
 */
export function modelUploadForm(settings: ModelUploadSettings, files: readonly ModelUploadFile[]): FormData {
  const form = new FormData();
  form.set('name', settings.name);
  form.set('task', settings.task);
  if (settings.version !== undefined) form.set('version', String(settings.version));
  if (settings.workerGroup !== undefined) form.set('workerGroup', settings.workerGroup);
  if (settings.labels !== undefined) form.set('labels', JSON.stringify(settings.labels));
  if (settings.batching !== undefined) form.set('batching', JSON.stringify(settings.batching));
  if (settings.runtime !== undefined) form.set('runtime', JSON.stringify(settings.runtime));
  for (const file of files) form.set(file.name, file.blob, file.name.split('/').at(-1));
  return form;
}
