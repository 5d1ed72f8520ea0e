// Raw image bodies (`curl --data-binary @cat.jpg -H 'content-type: image/jpeg'`) on the serve
// routes: Fastify reads them as bytes, under the same body limit as JSON, and the image
// endpoints' own parsing checks the type against the bytes (serving/tasks/image-classification.ts).
import { mediaTypeOf } from '@modelgate/processing';
import { type FastifyInstance } from 'fastify';

/** An image sent as the request body, with the content type it was sent with. */
export class RawImageBody {
  constructor(
    /** The Content-Type header as sent (`image/png`, parameters allowed). */
    readonly contentType: string,
    readonly bytes: Uint8Array,
  ) {}

  /** The same request as JSON (`{"image": "data:<type>;base64,..."}`), for an asynchronous job's queue. */
  toJson(): { image: string } {
    const base64 = Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength).toString(
      'base64',
    );
    return { image: `data:${mediaTypeOf(this.contentType)};base64,${base64}` };
  }
}

/** Any image media type: the serve routes decide which they take (415 for the rest). */
const IMAGE_CONTENT_TYPE = /^image\/[a-z0-9.+-]+\s*(;|$)/i;

/** The serve routes, not their tokenize route: the only ones that take a raw image body. */
const SERVE_PATH = /^\/serve\/[^/?#]+(\/[^/?#]+)?\/?(\?|#|$)/;

/** True for a POST the onRequest hook lets through with an image content type. */
export function takesImageBody(url: string, contentType: string): boolean {
  return IMAGE_CONTENT_TYPE.test(contentType) && SERVE_PATH.test(url) && !/\/tokenize\/?(\?|#|$)/.test(url);
}

/** Parses `image/*` bodies into a {@link RawImageBody}, within the server's body limit. */
export function installImageBodyParser(fastify: FastifyInstance): void {
  fastify.addContentTypeParser(IMAGE_CONTENT_TYPE, { parseAs: 'buffer' }, (request, body, done) => {
    const type = request.headers['content-type'] ?? '';
    done(null, new RawImageBody(type, body as Buffer));
  });
}
