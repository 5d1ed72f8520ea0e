/**
 * `s3://bucket/key` artifacts through the AWS SDK v3: credentials and region come from the SDK's
 * standard chain (environment, shared config and credentials files, web identity, container and
 * instance metadata); an endpoint URL points it at an S3-compatible store (MinIO, Ceph, R2, …),
 * addressed path-style.
 */
import { Readable } from 'node:stream';
import { GetObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { type SourceStream } from './file-source.js';
import { type ProxySettings, proxyFor } from './outbound-proxy.js';
import { tunnelAgent } from './proxy-tunnel.js';
import { redactUri } from './redact-uri.js';

/** How the store reaches S3. */
export interface S3Options {
  /** An S3-compatible store's URL (e.g. `http://minio:9000`); unset = AWS S3 itself. */
  endpointUrl?: string;
  /** Region when the standard chain names none. @defaultValue 'us-east-1' */
  defaultRegion?: string;
}

/**
 * The bucket and key of an `s3://bucket/key` URI. INVALID_ARGUMENT when either is missing, or
 * when the URI carries what the fetch would drop: a query (`?versionId=` would fetch the latest
 * object, not that version), a fragment, user info (credentials come from the SDK's chain) or a
 * port (an S3-compatible store's address comes from its endpoint URL).
 */
export function parseS3Uri(uri: string): { bucket: string; key: string } {
  const url = new URL(uri);
  const dropped = [
    ...(url.search !== '' ? ['a query'] : []),
    ...(url.hash !== '' ? ['a fragment'] : []),
    ...(url.username !== '' || url.password !== '' ? ['user info'] : []),
    ...(url.port !== '' ? ['a port'] : []),
  ];
  if (dropped.length > 0) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `${redactUri(uri)} has ${dropped.join(', ')}, which s3:// URIs may not: they name a bucket and ` +
        "a key only (percent-encode a '?' or '#' in a key as %3F or %23; object versions are not " +
        'served; credentials come from the AWS SDK chain, an S3-compatible store from its endpoint URL)',
      { field: 'uri' },
    );
  }
  const bucket = url.hostname;
  let key = '';
  try {
    key = decodeURIComponent(url.pathname.replace(/^\//, ''));
  } catch {
    // a malformed escape: refused below like a missing key
  }
  if (bucket === '' || key === '' || key.endsWith('/')) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `${redactUri(uri)} must be s3://<bucket>/<key> naming one object`,
      { field: 'uri' },
    );
  }
  return { bucket, key };
}

/**
 * An S3 client for `options`; one per store, created on first use. With a proxy that applies to
 * the endpoint (AWS S3 itself: https), its connections go through CONNECT tunnels.
 */
export function createS3Client(options: S3Options, proxy?: ProxySettings): S3Client {
  const endpoint = options.endpointUrl;
  const via = proxyFor(new URL(endpoint ?? 'https://s3.amazonaws.com'), proxy);
  // The SDK's own chain first (AWS_REGION, ~/.aws/config); a default so S3-compatible stores,
  // which ignore regions, need no AWS configuration. Resolved once per client.
  let region: Promise<string> | undefined;
  return new S3Client({
    region: () =>
      (region ??= regionFromChain().then((found) => found ?? options.defaultRegion ?? 'us-east-1')),
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    ...(via === undefined ? {} : { requestHandler: tunnelledRequestHandler(via) }),
  });
}

/** The SDK's handler with every connection tunnelled through `proxy`. */
function tunnelledRequestHandler(proxy: URL): NodeHttpHandler {
  return new NodeHttpHandler({
    httpAgent: tunnelAgent(proxy, 'http:'),
    httpsAgent: tunnelAgent(proxy, 'https:'),
  });
}

async function regionFromChain(): Promise<string | undefined> {
  const probe = new S3Client({});
  try {
    return await probe.config.region();
  } catch {
    return undefined;
  } finally {
    probe.destroy();
  }
}

/** Opens the object `uri` names, refusing one over `maxBytes` before reading it. */
export async function openS3Source(
  uri: string,
  client: S3Client,
  maxBytes: number,
  signal: AbortSignal,
): Promise<SourceStream> {
  const { bucket, key } = parseS3Uri(uri);
  let body: unknown;
  let length: number | undefined;
  try {
    const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }), {
      abortSignal: signal,
    });
    body = object.Body;
    length = object.ContentLength;
  } catch (error) {
    throw describeS3Failure(error, uri);
  }
  if (!(body instanceof Readable)) {
    throw new ModelgateError(ErrorCode.UNAVAILABLE, `${redactUri(uri)}: S3 answered without a body`);
  }
  if (length !== undefined && length > maxBytes) {
    body.destroy();
    throw new ModelgateError(
      ErrorCode.PAYLOAD_TOO_LARGE,
      `${redactUri(uri)} is ${length} bytes, over the limit of ${maxBytes} bytes`,
    );
  }
  return length === undefined ? { stream: body } : { stream: body, declaredBytes: length };
}

function describeS3Failure(error: unknown, uri: string): unknown {
  if (!(error instanceof S3ServiceException)) return error; // network, abort: the store words it
  const status = error.$metadata.httpStatusCode;
  const shown = redactUri(uri);
  if (error.name === 'NoSuchKey' || error.name === 'NoSuchBucket' || status === 404) {
    return new ModelgateError(ErrorCode.NOT_FOUND, `${shown}: no such object (${error.name})`);
  }
  if (error.name === 'AccessDenied' || status === 403 || status === 401) {
    return new ModelgateError(
      ErrorCode.PERMISSION_DENIED,
      `${shown}: access denied (${error.name}); check the credentials in the AWS chain`,
    );
  }
  return new ModelgateError(ErrorCode.UNAVAILABLE, `${shown}: S3 answered ${error.name}: ${error.message}`);
}
