// Images a hostile client sends an image endpoint: truncated, bit-flipped, garbage, a PNG whose
// header claims billions of pixels, bad base64, data URLs of the wrong type; as JSON fields or as
// raw bodies.
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import sharp from 'sharp';

/** A few small valid images to bend: PNG and JPEG. */
export async function sampleImages(): Promise<Buffer[]> {
  const pixels = Buffer.alloc(8 * 6 * 3, 0x7f);
  const image = () => sharp(pixels, { raw: { width: 8, height: 6, channels: 3 } });
  return [await image().png().toBuffer(), await image().jpeg().toBuffer()];
}

/** One PNG chunk: length, type, data, CRC. */
function pngChunk(type: string, data: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** A PNG whose header says `width`×`height` pixels, with (almost) no pixel data: a decompression bomb's head. */
export function claimedPng(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, deflate, no filter, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Image bytes: valid, truncated, bit-flipped, garbage, or a header claiming a huge image. */
export function imageBytes(samples: Buffer[]): fc.Arbitrary<Buffer> {
  const sample = fc.constantFrom(...samples);
  return fc.oneof(
    { arbitrary: sample, weight: 3 },
    {
      arbitrary: fc
        .tuple(sample, fc.double({ min: 0, max: 1, noNaN: true }))
        .map(([image, at]) => image.subarray(0, Math.floor(image.length * at))),
      weight: 3,
    },
    {
      arbitrary: fc
        .tuple(sample, fc.array(fc.nat(), { minLength: 1, maxLength: 8 }))
        .map(([image, spots]) => {
          const bent = Buffer.from(image);
          for (const spot of spots) bent[spot % bent.length] = (bent[spot % bent.length] ?? 0) ^ 0xff;
          return bent;
        }),
      weight: 2,
    },
    { arbitrary: fc.uint8Array({ maxLength: 400 }).map((bytes) => Buffer.from(bytes)), weight: 1 },
    {
      arbitrary: fc
        .tuple(
          fc.constantFrom(1, 0, 65_535, 100_000, 2 ** 31 - 1),
          fc.constantFrom(1, 0, 65_535, 2 ** 31 - 1),
        )
        .map(([width, height]) => claimedPng(width, height)),
      weight: 1,
    },
  );
}

/** The `image` field of a JSON body: a data URL or bare base64 of {@link imageBytes}, or bad base64. */
export function imageField(samples: Buffer[]): fc.Arbitrary<string> {
  const type = fc.constantFrom('image/png', 'image/jpeg', 'image/gif', 'text/plain', 'image/svg+xml', '');
  return fc.oneof(
    {
      arbitrary: fc
        .tuple(type, imageBytes(samples))
        .map(([mediaType, bytes]) => `data:${mediaType};base64,${bytes.toString('base64')}`),
      weight: 4,
    },
    { arbitrary: imageBytes(samples).map((bytes) => bytes.toString('base64')), weight: 2 },
    {
      arbitrary: fc.constantFrom(
        'data:image/png;base64,@@@@',
        'data:image/png;base64,',
        'data:image/png;base64,====',
        'data:image/png,rawbytes',
        'data:;base64,AAAA',
        'data:image/png;base64,iVBORw0KGgo%',
        'not base64 at all!',
        'A',
        'http://127.0.0.1:1/cat.png',
      ),
      weight: 2,
    },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 60 }), weight: 1 },
  );
}
