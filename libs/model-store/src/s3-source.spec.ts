import { describe, expect, it } from 'vitest';
import { parseS3Uri } from './s3-source.js';

describe('parseS3Uri', () => {
  it('reads the bucket and the percent-decoded key', () => {
    expect(parseS3Uri('s3://models/bert/model.onnx')).toEqual({ bucket: 'models', key: 'bert/model.onnx' });
    expect(parseS3Uri('s3://models/a%3Fb%23c.onnx')).toEqual({ bucket: 'models', key: 'a?b#c.onnx' });
  });

  it('refuses a URI without a bucket or a key, or naming a folder', () => {
    for (const uri of ['s3://models', 's3://models/', 's3://models/bert/'])
      expect(() => parseS3Uri(uri)).toThrow('must be s3://<bucket>/<key> naming one object');
  });

  it('refuses what the fetch would drop: a query, a fragment, user info, a port', () => {
    expect(() => parseS3Uri('s3://models/m.onnx?versionId=3')).toThrow(
      /^s3:\/\/models\/m\.onnx\?… has a query, which s3:\/\/ URIs may not/,
    );
    expect(() => parseS3Uri('s3://models/m.onnx#x')).toThrow('has a fragment, which');
    expect(() => parseS3Uri('s3://models:9000/m.onnx')).toThrow('has a port, which');
    let refusal = '';
    try {
      parseS3Uri('s3://KEY:SECRET@models/m.onnx');
    } catch (error) {
      refusal = (error as Error).message;
    }
    expect(refusal).toContain('has user info, which');
    expect(refusal).not.toContain('SECRET');
  });
});
