import { ErrorCode } from '../errors/error-code.js';
import { describe, expect, it } from 'vitest';
import { formatHfUri, hfResolveUrl, isHfUri, parseHfUri } from './hf-uri.js';

function refusal(uri: string): { code: string; message: string; field: unknown } {
  try {
    parseHfUri(uri);
  } catch (error) {
    const { code, message, details } = error as {
      code: string;
      message: string;
      details: { field?: unknown };
    };
    return { code, message, field: details.field };
  }
  return expect.fail(`expected ${uri} to be refused`);
}

describe('parseHfUri', () => {
  it('reads org, name and revision, defaulting the revision to main', () => {
    expect(parseHfUri('hf://distilbert/distilbert-base-uncased')).toEqual({
      repo: 'distilbert/distilbert-base-uncased',
      org: 'distilbert',
      name: 'distilbert-base-uncased',
      revision: 'main',
    });
    expect(parseHfUri('hf://Xenova/all-MiniLM-L6-v2@v1.0').revision).toBe('v1.0');
    expect(parseHfUri('hf://org/m_1.2@0123456789abcdef0123456789abcdef01234567').revision).toBe(
      '0123456789abcdef0123456789abcdef01234567',
    );
    expect(parseHfUri('HF://org/model@refs/pr/3')).toMatchObject({
      repo: 'org/model',
      revision: 'refs/pr/3',
    });
  });

  it.each([
    ['https://huggingface.co/org/model', /is not an hf:\/\/ URI/],
    ['hf://bert-base-uncased', /must name a repository as hf:\/\/<org>\/<name>/],
    ['hf://org/', /must name a repository/],
    ['hf:///model', /must name a repository/],
    [
      'hf://org/model/onnx/model.onnx',
      /names a path inside the repository; give the repository only \(hf:\/\/org\/model\)/,
    ],
    ['hf://org/mo del', /invalid name "mo del"/],
    ['hf://org/model--x', /invalid name "model--x"/],
    ['hf://org/model.', /invalid name "model\."/],
    ['hf://-org/model', /invalid org "-org"/],
    [`hf://org/${'a'.repeat(97)}`, /invalid name/],
    ['hf://org/model@', /empty revision after "@"/],
    ['hf://org/model@../main', /invalid revision "\.\.\/main"/],
    ['hf://org/model@a b', /invalid revision/],
    ['hf://org/model@/main', /invalid revision/],
    ['hf://org/model@main?download=1', /has a query or fragment/],
    ['hf://org/model#x', /has a query or fragment/],
  ])('refuses %s, saying why', (uri, reason) => {
    const refused = refusal(uri);
    expect(refused.code).toBe(ErrorCode.INVALID_ARGUMENT);
    expect(refused.field).toBe('uri');
    expect(refused.message).toMatch(reason);
  });
});

describe('isHfUri and formatHfUri', () => {
  it('tells hf:// URIs apart and writes the canonical form with its revision', () => {
    expect(isHfUri('hf://org/model')).toBe(true);
    expect(isHfUri('s3://bucket/key')).toBe(false);
    expect(formatHfUri(parseHfUri('hf://org/model'))).toBe('hf://org/model@main');
  });
});

describe('hfResolveUrl', () => {
  it('builds the Hub resolve URL under the endpoint, the revision as one path segment', () => {
    const ref = parseHfUri('hf://org/model@refs/pr/3');
    expect(hfResolveUrl('https://huggingface.co', ref, 'onnx/model.onnx')).toBe(
      'https://huggingface.co/org/model/resolve/refs%2Fpr%2F3/onnx/model.onnx',
    );
    expect(hfResolveUrl('http://mirror.internal/hf/', parseHfUri('hf://org/model'), 'config.json')).toBe(
      'http://mirror.internal/hf/org/model/resolve/main/config.json',
    );
  });
});
