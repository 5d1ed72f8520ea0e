import { describe, expect, it } from 'vitest';
import { UsageError } from '../cli-errors.js';
import {
  parseBatchSizes,
  parseExecutionProviders,
  parseModelRef,
  parseNonNegativeInt,
  parsePaddingRatio,
  parsePositiveInt,
  parseRegistryUrl,
  parseResourceName,
  parseRouteSpec,
  parseVersionPolicy,
} from './parse-arguments.js';

describe('parseRouteSpec', () => {
  it('reads name:version=weight, leaving the role to the registry', () => {
    expect(parseRouteSpec('sst2:1=90')).toEqual({ model: 'sst2:1', weight: 90 });
    expect(parseRouteSpec('my-model:12=0')).toEqual({ model: 'my-model:12', weight: 0 });
  });

  it('reads a role after the weight', () => {
    expect(parseRouteSpec('sst2:2=10:canary')).toEqual({ model: 'sst2:2', weight: 10, role: 'canary' });
    expect(parseRouteSpec('sst2:3=5:shadow')).toEqual({ model: 'sst2:3', weight: 5, role: 'shadow' });
  });

  it.each([
    ['sst2:1', "route 'sst2:1' needs a weight: name:version=weight, e.g. sst2:2=10"],
    ['=50', "route '=50' needs a weight: name:version=weight, e.g. sst2:2=10"],
    ['sst2=50', "route 'sst2=50': 'sst2' is not a model id name:version, e.g. sst2:2"],
    ['SST2:1=50', "route 'SST2:1=50': 'SST2:1' is not a model id name:version, e.g. sst2:2"],
    ['sst2:0=50', "route 'sst2:0=50': 'sst2:0' is not a model id name:version, e.g. sst2:2"],
    ['sst2:1=', "route 'sst2:1=': weight '' must be an integer percentage from 0 to 100"],
    ['sst2:1=101', "route 'sst2:1=101': weight '101' must be an integer percentage from 0 to 100"],
    ['sst2:1=12.5', "route 'sst2:1=12.5': weight '12.5' must be an integer percentage from 0 to 100"],
    ['sst2:1=-5', "route 'sst2:1=-5': weight '-5' must be an integer percentage from 0 to 100"],
    ['sst2:1=50:main', "route 'sst2:1=50:main': role 'main' must be one of primary, canary, shadow"],
    [
      'sst2:1=50:canary:x',
      "route 'sst2:1=50:canary:x': role 'canary:x' must be one of primary, canary, shadow",
    ],
  ])('refuses %s with a message saying what is wrong', (text, message) => {
    expect(() => parseRouteSpec(text)).toThrow(new UsageError(message));
  });
});

describe('parseModelRef', () => {
  it('splits name:version', () => {
    expect(parseModelRef('sst2-minilm:3')).toEqual({ name: 'sst2-minilm', version: '3' });
  });

  it.each(['sst2', 'sst2:', ':1', 'sst2:01', 'sst2:v1', 'Sst2:1'])('refuses %s', (text) => {
    expect(() => parseModelRef(text)).toThrow(/is not a model id: expected name:version, e.g. sst2:1/);
  });
});

describe('integer options', () => {
  it('accepts whole numbers in range', () => {
    expect(parsePositiveInt('8')).toBe(8);
    expect(parseNonNegativeInt('0')).toBe(0);
    expect(parseNonNegativeInt(' 2000 ')).toBe(2000);
  });

  it.each(['', 'x', '1.5', '-1', '1e3', '99999999999999999999'])('refuses %j', (text) => {
    expect(() => parseNonNegativeInt(text)).toThrow(UsageError);
  });

  it('refuses 0 where a positive number is needed', () => {
    expect(() => parsePositiveInt('0')).toThrow("'0' must be a positive integer");
  });
});

describe('parseBatchSizes', () => {
  it('reads a comma-separated list of positive integers', () => {
    expect(parseBatchSizes('4,8')).toEqual([4, 8]);
    expect(parseBatchSizes(' 2 , 16 ,')).toEqual([2, 16]);
  });

  it('refuses an empty list, 0 and what is not an integer', () => {
    expect(() => parseBatchSizes(',')).toThrow('lists no batch size');
    expect(() => parseBatchSizes('4,0')).toThrow("'0' must be a positive integer");
    expect(() => parseBatchSizes('4,x')).toThrow(UsageError);
  });
});

describe('parseExecutionProviders', () => {
  it('keeps the order of preference', () => {
    expect(parseExecutionProviders('tensorrt,cuda,cpu')).toEqual(['tensorrt', 'cuda', 'cpu']);
    expect(parseExecutionProviders(' CUDA , cpu ')).toEqual(['cuda', 'cpu']);
  });

  it('names unknown and repeated providers', () => {
    expect(() => parseExecutionProviders('cuda,rocm')).toThrow(
      "unknown execution provider 'rocm'; use some of tensorrt, cuda, cpu",
    );
    expect(() => parseExecutionProviders('cpu,cpu')).toThrow("execution provider 'cpu' is listed twice");
    expect(() => parseExecutionProviders(',')).toThrow('lists no execution provider');
  });
});

describe('parseRegistryUrl', () => {
  it('takes an http(s) base URL and drops trailing slashes', () => {
    expect(parseRegistryUrl('https://registry.example.com/')).toBe('https://registry.example.com');
    expect(parseRegistryUrl('http://127.0.0.1:8081/base')).toBe('http://127.0.0.1:8081/base');
  });

  it.each(['127.0.0.1:8081', 'ftp://x', 'http://host/?q=1'])('refuses %s', (text) => {
    expect(() => parseRegistryUrl(text)).toThrow('must be an http:// or https:// URL');
  });
});

describe('parseResourceName', () => {
  it('accepts lowercase DNS-label names', () => {
    expect(parseResourceName('sst2-minilm')).toBe('sst2-minilm');
  });

  it.each(['BadName', '-x', 'a_b', '', 'x'.repeat(64)])('refuses %j before anything is uploaded', (text) => {
    expect(() => parseResourceName(text)).toThrow('must be 1-63 lowercase letters, digits or dashes');
  });
});

describe('parsePaddingRatio', () => {
  it('takes a number of 1 or more', () => {
    expect(parsePaddingRatio('1.15')).toBe(1.15);
    expect(parsePaddingRatio(' 1 ')).toBe(1);
  });

  it('refuses what no batch could keep to, naming the range', () => {
    for (const text of ['0.9', '', 'abc', 'Infinity']) {
      expect(() => parsePaddingRatio(text)).toThrow(/must be a number from 1 to 1000000/);
    }
  });
});

describe('parseVersionPolicy', () => {
  it('reads all, latest[:N], specific:V,... and default', () => {
    expect(parseVersionPolicy('all')).toEqual({ kind: 'all' });
    expect(parseVersionPolicy('latest')).toEqual({ kind: 'latest', count: 1 });
    expect(parseVersionPolicy('latest:3')).toEqual({ kind: 'latest', count: 3 });
    expect(parseVersionPolicy('specific:1,3')).toEqual({ kind: 'specific', versions: [1, 3] });
    expect(parseVersionPolicy('default')).toBeUndefined();
  });

  it.each([
    ['newest', "version policy 'newest': expected one of all, latest[:N], specific:V1,V2,... or default"],
    ['all:2', "version policy 'all:2': expected one of all, latest[:N], specific:V1,V2,... or default"],
    ['specific', "version policy 'specific': expected one of all, latest[:N], specific:V1,V2,... or default"],
    ['latest:0', "version policy 'latest:0': N must be a positive integer, got '0'"],
    ['latest:x', "version policy 'latest:x': N must be a positive integer, got 'x'"],
    ['specific:1,,2', "version policy 'specific:1,,2': each version must be a positive integer, got ''"],
    ['specific:2,2', "version policy 'specific:2,2': a version is listed twice"],
    [
      'latest:1:2',
      "version policy 'latest:1:2': expected one of all, latest[:N], specific:V1,V2,... or default",
    ],
  ])('refuses %s', (text, message) => {
    expect(() => parseVersionPolicy(text)).toThrow(new UsageError(message));
  });
});
