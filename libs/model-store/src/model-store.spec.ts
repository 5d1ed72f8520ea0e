import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@modelgate/contracts';
import { ModelStore } from './model-store.js';
import { redactUri } from './redact-uri.js';

const SHA = 'a'.repeat(64);

describe('ModelStore URI and digest checks', () => {
  const cacheDir = mkdtempSync(join(tmpdir(), 'model-store-unit-'));
  const store = new ModelStore({ cacheDir, fileRoots: [cacheDir] });
  afterAll(() => {
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it('refuses an unsupported scheme, listing the supported ones', async () => {
    await expect(store.fetchArtifact({ uri: 'gs://bucket/model.onnx', sha256: SHA })).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      message: 'unsupported scheme "gs" in gs://bucket/model.onnx (supported: file, http, https, s3)',
    });
  });

  it('refuses http(s) unless allowHttp is set', async () => {
    await expect(
      store.fetchArtifact({ uri: 'https://example.com/m.onnx', sha256: SHA }),
    ).rejects.toMatchObject({
      code: ErrorCode.PERMISSION_DENIED,
      message: expect.stringContaining('allowHttp is false') as unknown,
    });
  });

  it.each(['', 'abc', 'g'.repeat(64), `${SHA}0`])('refuses the digest %j', async (sha256) => {
    await expect(store.fetchBundle({ uri: 'file:///x', sha256 })).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      details: { field: 'sha256' },
    });
  });

  it('refuses bad options at construction', () => {
    expect(() => new ModelStore({ cacheDir, fileRoots: [], maxBytes: 0 })).toThrow(/maxBytes/);
    expect(() => new ModelStore({ cacheDir, fileRoots: [], allowedHosts: ['not a host'] })).toThrow(
      /allowedHosts/,
    );
  });
});

describe('redactUri', () => {
  it('drops credentials and the query string', () => {
    expect(redactUri('https://user:pw@host.example/a/model.onnx?X-Amz-Signature=s3cret#frag')).toBe(
      'https://host.example/a/model.onnx?…',
    );
    expect(redactUri('file:///models/a.onnx')).toBe('file:///models/a.onnx');
  });
});
