import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseContextsFile, resolveConnection, withContext, withCurrentContext } from './cli-contexts.js';

const FILE = `current-context: dev
contexts:
  dev:
    registry: http://127.0.0.1:8081
  prod:
    registry: https://registry.example.com/
    token: prod-token
`;

const contexts = parseContextsFile(FILE, 'config.yaml');
const defaults = { defaultRegistry: 'http://127.0.0.1:8081' };

describe('CLI contexts', () => {
  it('reads the file, trailing slashes dropped; no file or an empty one has no contexts', () => {
    expect(contexts.contexts.prod).toEqual({ registry: 'https://registry.example.com', token: 'prod-token' });
    expect(parseContextsFile(undefined, 'f')).toEqual({ contexts: {} });
    expect(parseContextsFile('  \n', 'f')).toEqual({ contexts: {} });
  });

  it('refuses a file it would misread, naming the field', () => {
    expect(() => parseContextsFile('contexts:\n  a:\n    registry: ftp://x\n', 'f')).toThrow(
      /f: contexts.a.registry: must be an http/,
    );
    expect(() => parseContextsFile('contexts:\n  a:\n    registry: http://x\n    server: y\n', 'f')).toThrow(
      'contexts.a.server: is not a known field',
    );
    expect(() => parseContextsFile('current-context: b\ncontexts: {}\n', 'f')).toThrow(
      "current-context 'b' is not one of its contexts",
    );
    expect(() => parseContextsFile('{ not yaml', 'f')).toThrow(/f: not YAML/);
  });

  it('picks the registry: flag, --context, environment, current context, default', () => {
    expect(
      resolveConnection({ ...defaults, registryFlag: 'http://flag', contextFlag: 'prod' }, contexts, 'f'),
    ).toEqual({
      registry: 'http://flag',
      token: 'prod-token',
    });
    expect(
      resolveConnection(
        { ...defaults, contextFlag: 'prod', envRegistry: 'http://env', envToken: 't' },
        contexts,
        'f',
      ),
    ).toEqual({
      registry: 'https://registry.example.com',
      token: 'prod-token',
    });
    expect(
      resolveConnection({ ...defaults, envRegistry: 'http://env', envToken: 't' }, contexts, 'f'),
    ).toEqual({
      registry: 'http://env',
      token: 't',
    });
    expect(resolveConnection(defaults, contexts, 'f')).toEqual({ registry: 'http://127.0.0.1:8081' });
    expect(resolveConnection(defaults, { contexts: {} }, 'f')).toEqual({ registry: 'http://127.0.0.1:8081' });
    expect(() => resolveConnection({ ...defaults, contextFlag: 'staging' }, contexts, 'f')).toThrow(
      '--context staging: f has the contexts dev, prod',
    );
  });

  it('writes a context and the current one back', () => {
    const added = parseYaml(withContext(contexts, 'staging', { registry: 'http://staging:8081' })) as unknown;
    expect(added).toMatchObject({
      'current-context': 'dev',
      contexts: { staging: { registry: 'http://staging:8081' } },
    });
    expect(parseYaml(withCurrentContext(contexts, 'prod', 'f'))).toMatchObject({ 'current-context': 'prod' });
    expect(() => withCurrentContext(contexts, 'nope', 'f')).toThrow(
      'use-context nope: f has the contexts dev, prod',
    );
    expect(() => withContext(contexts, 'bad name', { registry: 'http://x' })).toThrow();
  });
});
