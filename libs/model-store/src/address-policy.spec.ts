import { describe, expect, it } from 'vitest';
import { isForbiddenAddress, parseHostAllowlist } from './address-policy.js';

describe('isForbiddenAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private network (10.0.0.0/8)'],
    ['172.16.0.1', 'private network (172.16.0.0/12)'],
    ['172.31.255.255', 'private network (172.16.0.0/12)'],
    ['192.168.1.1', 'private network (192.168.0.0/16)'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'cloud metadata endpoint'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this network'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
  ])('refuses IPv4 %s (%s)', (ip, reason) => {
    expect(isForbiddenAddress(ip)).toContain(reason);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '169.253.1.1',
    '11.0.0.1',
  ])('allows public IPv4 %s', (ip) => {
    expect(isForbiddenAddress(ip)).toBeUndefined();
  });

  it.each([
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['fd00:ec2::254', 'unique local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['100::1', 'discard'],
    ['ff02::1', 'multicast'],
  ])('refuses IPv6 %s (%s)', (ip, reason) => {
    expect(isForbiddenAddress(ip)).toContain(reason);
  });

  it.each(['2606:4700:4700::1111', '2001:4860:4860::8888', '2a00:1450::1', 'fbff::1'])(
    'allows public IPv6 %s',
    (ip) => {
      expect(isForbiddenAddress(ip)).toBeUndefined();
    },
  );

  it.each([
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback'],
    ['::FFFF:10.0.0.1', 'IPv4-mapped private network'],
    ['::ffff:169.254.169.254', 'IPv4-mapped cloud metadata endpoint'],
    ['0:0:0:0:0:ffff:192.168.0.1', 'IPv4-mapped private network'],
    ['64:ff9b::127.0.0.1', 'NAT64 loopback'],
    ['2002:7f00:1::', '6to4 loopback'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
  ])('judges the IPv4 address inside %s (%s)', (ip, reason) => {
    expect(isForbiddenAddress(ip)).toContain(reason);
  });

  it('allows an IPv4-mapped public address', () => {
    expect(isForbiddenAddress('::ffff:8.8.8.8')).toBeUndefined();
    expect(isForbiddenAddress('64:ff9b::808:808')).toBeUndefined();
  });

  it.each(['localhost', '', '1.2.3', '01.2.3.4', '::g', '1.2.3.4.5'])(
    'refuses %j, which is not an IP address',
    (ip) => {
      expect(isForbiddenAddress(ip)).toBe('not an IP address');
    },
  );
});

describe('parseHostAllowlist', () => {
  const allowlist = parseHostAllowlist([
    'LocalHost',
    'models.internal.',
    '10.0.0.0/8',
    '::1',
    'fd00::/8',
    '127.0.0.1',
  ]);

  it('matches host names case-insensitively and ignores a trailing dot', () => {
    expect(allowlist.allowsHost('localhost')).toBe(true);
    expect(allowlist.allowsHost('MODELS.internal.')).toBe(true);
    expect(allowlist.allowsHost('other.internal')).toBe(false);
    expect(allowlist.allowsHost('sub.localhost')).toBe(false);
  });

  it('matches addresses, CIDR blocks and IPv4-mapped forms of listed IPv4 addresses', () => {
    expect(allowlist.allowsAddress('10.200.3.4')).toBe(true);
    expect(allowlist.allowsAddress('::ffff:10.200.3.4')).toBe(true);
    expect(allowlist.allowsAddress('127.0.0.1')).toBe(true);
    expect(allowlist.allowsAddress('127.0.0.2')).toBe(false);
    expect(allowlist.allowsAddress('::1')).toBe(true);
    expect(allowlist.allowsAddress('[::1]')).toBe(true);
    expect(allowlist.allowsAddress('fd12::5')).toBe(true);
    expect(allowlist.allowsAddress('fc00::5')).toBe(false);
    expect(allowlist.allowsAddress('11.0.0.1')).toBe(false);
  });

  it('reads an IPv4-mapped CIDR entry as the IPv4 block', () => {
    expect(parseHostAllowlist(['::ffff:192.168.0.0/112']).allowsAddress('192.168.3.4')).toBe(true);
  });

  it('refuses entries it cannot read, naming each', () => {
    expect(() => parseHostAllowlist(['10.0.0.0/33', 'http://x', 'ok.host', '::1/129', '10.0.0.0/x'])).toThrow(
      /"10.0.0.0\/33", "http:\/\/x", "::1\/129", "10.0.0.0\/x"/,
    );
  });
});
