import { describe, expect, it } from 'vitest';
import { loadRegistryConfig, REGISTRY_ENV_KEYS } from './registry.config.js';

const DATABASE_URL = 'postgres://modelgate@db:5432/modelgate';

describe('registry config', () => {
  it('applies the documented defaults', () => {
    const config = loadRegistryConfig({ DATABASE_URL });
    expect(config).toMatchObject({
      REGISTRY_HOST: '0.0.0.0',
      REGISTRY_PORT: 8081,
      DATABASE_SCHEMA: 'public',
      REDIS_KEY_PREFIX: 'modelgate',
      REGISTRY_PUBLIC_URL: 'http://127.0.0.1:8081',
      REGISTRY_RELAY_INTERVAL_MS: 1000,
      REGISTRY_ARTIFACT_ROOTS: [],
      REGISTRY_TEST_CRASH_AFTER_COMMIT: false,
    });
    expect(config.REDIS_URL).toBeUndefined();
  });

  it('parses lists and trims the public URL', () => {
    const config = loadRegistryConfig({
      DATABASE_URL,
      REGISTRY_ARTIFACT_ROOTS: '/models, /data/models ,',
      REGISTRY_PUBLIC_URL: 'http://registry:8081/',
    });
    expect(config.REGISTRY_ARTIFACT_ROOTS).toEqual(['/models', '/data/models']);
    expect(config.REGISTRY_PUBLIC_URL).toBe('http://registry:8081');
  });

  it('imports hf:// models from the public Hub unless HF_ENDPOINT names another, given as an http(s) base URL', () => {
    expect(loadRegistryConfig({ DATABASE_URL }).HF_ENDPOINT).toBe('https://huggingface.co');
    expect(loadRegistryConfig({ DATABASE_URL, HF_ENDPOINT: 'http://hub.internal:8080/' }).HF_ENDPOINT).toBe(
      'http://hub.internal:8080',
    );
    expect(() =>
      loadRegistryConfig({ DATABASE_URL, HF_ENDPOINT: 'ftp://hub', HF_TOKEN: 'hf_secret' }),
    ).toThrow(/HF_ENDPOINT/);
    expect(() =>
      loadRegistryConfig({ DATABASE_URL, HF_ENDPOINT: 'ftp://hub', HF_TOKEN: 'hf_secret' }),
    ).not.toThrow(/hf_secret/);
  });

  it('trims a bootstrap token, as clients send it, and refuses one with whitespace inside', () => {
    // A Secret made from a file ends in a line break; the hash stored is of what clients send.
    expect(
      loadRegistryConfig({ DATABASE_URL, REGISTRY_BOOTSTRAP_TOKEN: 'test-admin-token-0123456789\n' })
        .REGISTRY_BOOTSTRAP_TOKEN,
    ).toBe('test-admin-token-0123456789');
    expect(() =>
      loadRegistryConfig({ DATABASE_URL, REGISTRY_BOOTSTRAP_TOKEN: 'my admin token 0123456789' }),
    ).toThrow(/REGISTRY_BOOTSTRAP_TOKEN: must be printable ASCII without spaces inside/);
    expect(
      loadRegistryConfig({ DATABASE_URL, REGISTRY_BOOTSTRAP_TOKEN: 'x'.repeat(16) }).REGISTRY_BOOTSTRAP_TOKEN,
    ).toBe('x'.repeat(16));
  });

  it('fails listing every bad key by name, never its value', () => {
    let message = '';
    try {
      loadRegistryConfig({
        DATABASE_URL: 'mysql://secret-password@db',
        REGISTRY_PORT: 'eighty',
        REDIS_URL: 'nope',
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('DATABASE_URL');
    expect(message).toContain('REGISTRY_PORT');
    expect(message).toContain('REDIS_URL');
    expect(message).not.toContain('secret-password');
  });

  it('refuses durations a Node timer cannot keep (they would act after 1 ms)', () => {
    expect(() =>
      loadRegistryConfig({ DATABASE_URL, REGISTRY_ARTIFACT_FETCH_TIMEOUT_MS: '3000000000' }),
    ).toThrow(/REGISTRY_ARTIFACT_FETCH_TIMEOUT_MS/);
    expect(() => loadRegistryConfig({ DATABASE_URL, REGISTRY_RELAY_INTERVAL_MS: '3000000000' })).toThrow(
      /REGISTRY_RELAY_INTERVAL_MS/,
    );
  });

  it('exports the env keys it reads', () => {
    expect(REGISTRY_ENV_KEYS).toEqual(
      expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'REGISTRY_BOOTSTRAP_TOKEN']),
    );
    expect(REGISTRY_ENV_KEYS.every((key) => /^[A-Z][A-Z0-9_]+$/.test(key))).toBe(true);
  });

  it('refuses settings that act only through Redis when REDIS_URL is unset, each saying why', () => {
    const redisOnly = {
      REDIS_KEY_PREFIX: 'mg',
      REGISTRY_PREPARATION_LOCK_MS: '1000',
      REGISTRY_PREPARATION_STALLED_INTERVAL_MS: '1000',
      REGISTRY_ROLLOUT_TICK_MS: '500',
    };
    expect(() => loadRegistryConfig({ DATABASE_URL, ...redisOnly })).toThrow(
      'invalid registry configuration:\n' +
        '  REDIS_KEY_PREFIX: prefixes Redis keys and channels only: set REDIS_URL, or leave it out\n' +
        '  REGISTRY_PREPARATION_LOCK_MS: the BullMQ job lock; preparation and announcements run in-process without Redis: set REDIS_URL, or leave it out\n' +
        '  REGISTRY_PREPARATION_STALLED_INTERVAL_MS: the BullMQ stalled-job check; preparation and announcements run in-process without Redis: set REDIS_URL, or leave it out\n' +
        '  REGISTRY_ROLLOUT_TICK_MS: paces rollouts, which judge the numbers gateways report through Redis: without it none starts: set REDIS_URL, or leave it out',
    );
    const withRedis = loadRegistryConfig({ DATABASE_URL, REDIS_URL: 'redis://redis:6379', ...redisOnly });
    expect(withRedis).toMatchObject({
      REDIS_KEY_PREFIX: 'mg',
      REGISTRY_PREPARATION_LOCK_MS: 1000,
      REGISTRY_PREPARATION_STALLED_INTERVAL_MS: 1000,
      REGISTRY_ROLLOUT_TICK_MS: 500,
    });
    // Attempts and backoff act in-process too.
    expect(
      loadRegistryConfig({ DATABASE_URL, REGISTRY_PREPARATION_ATTEMPTS: '5' }).REGISTRY_PREPARATION_ATTEMPTS,
    ).toBe(5);
  });
});
