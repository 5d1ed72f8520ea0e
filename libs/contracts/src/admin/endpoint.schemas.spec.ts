import { describe, expect, it } from 'vitest';
import { createEndpointSchema, updateEndpointSchema } from './endpoint.schemas.js';

const endpoint = { name: 'sentiment', task: 'text-classification', model: 'sst2:1' };

describe('createEndpointSchema: unknown keys in nested settings', () => {
  it('refuses a misspelt preprocessing or postprocessing key instead of dropping it', () => {
    const parsed = createEndpointSchema.safeParse({
      ...endpoint,
      preprocessing: { maxToken: 5 },
      postprocessing: { top_k: 2 },
    });
    expect(parsed.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)).toEqual([
      'preprocessing: Unrecognized key: "maxToken"',
      'postprocessing: Unrecognized key: "top_k"',
    ]);
  });

  it('still fills the defaults of the keys left out', () => {
    const parsed = createEndpointSchema.parse({ ...endpoint, preprocessing: { maxTokens: 64 } });
    expect(parsed.preprocessing.maxTokens).toBe(64);
    expect(typeof parsed.preprocessing.truncation).toBe('boolean');
    expect(parsed.postprocessing).toEqual({});
  });
});

describe('endpoint timeoutMs', () => {
  it('refuses a deadline beyond what a timer keeps and the database holds (it answered 500), on create and update', () => {
    const issues = (parsed: { error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
      parsed.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    expect(issues(createEndpointSchema.safeParse({ ...endpoint, timeoutMs: 3_000_000_000 }))).toEqual([
      'timeoutMs: Too big: expected number to be <=2147483647',
    ]);
    expect(issues(updateEndpointSchema.safeParse({ timeoutMs: 99_999_999_999 }))).toEqual([
      'timeoutMs: Too big: expected number to be <=2147483647',
    ]);
    expect(updateEndpointSchema.parse({ timeoutMs: 2_147_483_647 }).timeoutMs).toBe(2_147_483_647);
  });
});
