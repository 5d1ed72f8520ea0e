import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  MAX_TIMER_MS,
  millisecondsFromEnv,
  outboundProxyEnv,
  parseEnv,
  refuseLowercaseProxyEnv,
} from './env-schema.js';

describe('millisecondsFromEnv', () => {
  it('reads an integer within its bounds', () => {
    expect(millisecondsFromEnv(100).parse('2500')).toBe(2500);
    expect(millisecondsFromEnv(0, 600_000).parse('600000')).toBe(600_000);
  });

  it('refuses a value below its minimum or above its maximum', () => {
    expect(millisecondsFromEnv(100).safeParse('99').success).toBe(false);
    expect(millisecondsFromEnv(0, 600_000).safeParse('600001').success).toBe(false);
  });

  it('refuses a delay a Node timer cannot keep (it would fire after 1 ms), whatever maximum is asked', () => {
    expect(millisecondsFromEnv(0).parse(String(MAX_TIMER_MS))).toBe(MAX_TIMER_MS);
    expect(millisecondsFromEnv(0).safeParse(String(MAX_TIMER_MS + 1)).success).toBe(false);
    expect(millisecondsFromEnv(0, Number.MAX_SAFE_INTEGER).safeParse('3000000000').success).toBe(false);
  });
});

describe('outbound proxy variables', () => {
  const schema = z.object(outboundProxyEnv);

  it('take http:// proxy URLs (a bare host:port as http://) and refuse others, naming the variable', () => {
    expect(schema.parse({ HTTPS_PROXY: 'http://proxy:3128', HTTP_PROXY: 'proxy:3128' })).toEqual({
      HTTPS_PROXY: 'http://proxy:3128',
      HTTP_PROXY: 'proxy:3128',
    });
    expect(() => parseEnv(schema, { HTTPS_PROXY: 'https://proxy:443' }, 'gateway')).toThrow(
      /HTTPS_PROXY: must be an http:\/\/ proxy URL/,
    );
    expect(() => parseEnv(schema, { HTTP_PROXY: 'http://' }, 'worker')).toThrow(/HTTP_PROXY/);
  });

  it('refuse a lowercase name unless it equals the uppercase one, which is the one read', () => {
    expect(() =>
      refuseLowercaseProxyEnv({ HTTPS_PROXY: 'http://p:1', https_proxy: 'http://p:1' }, 'worker'),
    ).not.toThrow();
    expect(() => refuseLowercaseProxyEnv({ https_proxy: 'http://p:1' }, 'worker')).toThrow(
      /https_proxy: set HTTPS_PROXY \(uppercase\)/,
    );
    expect(() => refuseLowercaseProxyEnv({ NO_PROXY: 'a', no_proxy: 'b' }, 'registry')).toThrow(/no_proxy/);
  });
});
