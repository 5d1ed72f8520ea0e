import { isIPv4, isIPv6 } from 'node:net';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';

/** An IP address as a number: 32 bits for IPv4, 128 bits for IPv6. */
interface ParsedIp {
  family: 4 | 6;
  value: bigint;
}

/** A CIDR block with the reason an address inside it is refused. */
interface Range {
  base: bigint;
  prefix: number;
  reason: string;
}

/** IPv6 prefixes that carry an IPv4 address in some of their bits, which is then judged as IPv4. */
interface EmbeddingRange {
  base: bigint;
  prefix: number;
  /** Bit offset of the embedded IPv4 address, counted from the least significant bit. */
  shift: bigint;
  name: string;
}

const V4_BITS = 32;
const V6_BITS = 128;

/** Refused IPv4 blocks, most specific first: the first match names the reason. */
const FORBIDDEN_V4: readonly Range[] = [
  v4Range('0.0.0.0/32', 'unspecified address'),
  v4Range('0.0.0.0/8', '"this network" (0.0.0.0/8)'),
  v4Range('10.0.0.0/8', 'private network (10.0.0.0/8)'),
  v4Range('100.64.0.0/10', 'carrier-grade NAT (100.64.0.0/10)'),
  v4Range('127.0.0.0/8', 'loopback (127.0.0.0/8)'),
  v4Range('169.254.169.254/32', 'cloud metadata endpoint (169.254.169.254)'),
  v4Range('169.254.0.0/16', 'link-local (169.254.0.0/16)'),
  v4Range('172.16.0.0/12', 'private network (172.16.0.0/12)'),
  v4Range('192.0.0.0/24', 'IETF protocol assignments (192.0.0.0/24)'),
  v4Range('192.168.0.0/16', 'private network (192.168.0.0/16)'),
  v4Range('198.18.0.0/15', 'benchmarking network (198.18.0.0/15)'),
  v4Range('224.0.0.0/4', 'multicast (224.0.0.0/4)'),
  v4Range('240.0.0.0/4', 'reserved or broadcast (240.0.0.0/4)'),
];

/** Refused IPv6 blocks; checked after the embedded-IPv4 forms below. */
const FORBIDDEN_V6: readonly Range[] = [
  v6Range('::/128', 'unspecified address (::)'),
  v6Range('::1/128', 'loopback (::1)'),
  v6Range('100::/64', 'discard prefix (100::/64)'),
  v6Range('fc00::/7', 'unique local address (fc00::/7)'),
  v6Range('fe80::/10', 'link-local (fe80::/10)'),
  v6Range('fec0::/10', 'site-local (fec0::/10)'),
  v6Range('ff00::/8', 'multicast (ff00::/8)'),
];

/** `::ffff:a.b.c.d`, NAT64 and 6to4 reach the embedded IPv4 host, so it must pass the IPv4 rules. */
const EMBEDDING_V6: readonly EmbeddingRange[] = [
  { ...v6Range('::ffff:0:0/96', ''), shift: 0n, name: 'IPv4-mapped' },
  { ...v6Range('64:ff9b::/96', ''), shift: 0n, name: 'NAT64' },
  { ...v6Range('2002::/16', ''), shift: 80n, name: '6to4' },
];

/**
 * Why fetching from `ip` is refused (loopback, private, link-local, metadata, ...), or undefined
 * when it is a public unicast address. Anything that is not an IP address is refused.
 */
export function isForbiddenAddress(ip: string): string | undefined {
  const parsed = parseIp(ip);
  if (!parsed) return 'not an IP address';
  if (parsed.family === 4) return matchRange(FORBIDDEN_V4, parsed.value, V4_BITS);
  // The deprecated IPv4-compatible form ::a.b.c.d (but not :: and ::1, named below).
  if (parsed.value >> 32n === 0n && parsed.value > 1n) {
    const reason = matchRange(FORBIDDEN_V4, parsed.value, V4_BITS);
    return reason === undefined ? 'IPv4-compatible IPv6 address (deprecated)' : `IPv4-compatible ${reason}`;
  }
  for (const range of EMBEDDING_V6) {
    if (!inRange(parsed.value, range.base, range.prefix, V6_BITS)) continue;
    const reason = matchRange(FORBIDDEN_V4, (parsed.value >> range.shift) & 0xffff_ffffn, V4_BITS);
    return reason === undefined ? undefined : `${range.name} ${reason}`;
  }
  return matchRange(FORBIDDEN_V6, parsed.value, V6_BITS);
}

/** Which hosts may be fetched even though they resolve to a forbidden address. */
export interface HostAllowlist {
  /** True when `hostname` (a DNS name, case-insensitive) was listed by name. */
  allowsHost(hostname: string): boolean;
  /** True when `ip` was listed, or lies inside a listed CIDR block. */
  allowsAddress(ip: string): boolean;
}

/**
 * Parses `allowedHosts` entries: host names (`localhost`, `models.internal`), IP addresses
 * (`10.0.0.5`, `::1`) and CIDR blocks (`10.0.0.0/8`, `fd00::/8`). Throws INVALID_ARGUMENT
 * naming every entry it cannot read.
 */
export function parseHostAllowlist(entries: readonly string[]): HostAllowlist {
  const names = new Set<string>();
  const blocks: (Range & { family: 4 | 6 })[] = [];
  const bad: string[] = [];
  for (const entry of entries) {
    const text = stripBrackets(entry.trim().toLowerCase());
    const slash = text.indexOf('/');
    const ip = parseIp(slash === -1 ? text : text.slice(0, slash));
    if (ip) {
      const bits = ip.family === 4 ? V4_BITS : V6_BITS;
      const prefix = slash === -1 ? bits : Number(text.slice(slash + 1));
      if (slash !== -1 && !/^\d{1,3}$/.test(text.slice(slash + 1))) bad.push(entry);
      else if (prefix > bits) bad.push(entry);
      else if (ip.family === 6 && prefix >= 96 && unmapIpv4(ip).family === 4)
        blocks.push({ family: 4, base: ip.value & 0xffff_ffffn, prefix: prefix - 96, reason: '' });
      else blocks.push({ family: ip.family, base: ip.value, prefix, reason: '' });
    } else if (/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/.test(text)) {
      names.add(text.replace(/\.$/, ''));
    } else {
      bad.push(entry);
    }
  }
  if (bad.length > 0) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `allowedHosts has entries that are neither a host name, an IP address nor a CIDR block: ${bad
        .map((entry) => JSON.stringify(entry))
        .join(', ')}`,
    );
  }
  return {
    allowsHost: (hostname) => names.has(stripBrackets(hostname.toLowerCase()).replace(/\.$/, '')),
    allowsAddress: (address) => {
      const parsed = parseIp(stripBrackets(address));
      if (!parsed) return false;
      const ip = unmapIpv4(parsed);
      const bits = ip.family === 4 ? V4_BITS : V6_BITS;
      return blocks.some(
        (block) => block.family === ip.family && inRange(ip.value, block.base, block.prefix, bits),
      );
    },
  };
}

/** Parses a dotted-quad IPv4 or any textual IPv6 address (zone ids dropped); undefined otherwise. */
function parseIp(text: string): ParsedIp | undefined {
  if (isIPv4(text)) return { family: 4, value: parseIpv4(text) };
  const address = text.replace(/%.*$/, '');
  if (!isIPv6(address)) return undefined;
  let hextets = address;
  const lastColon = address.lastIndexOf(':');
  const tail = address.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIpv4(tail);
    hextets = `${address.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', rest] = hextets.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return { family: 6, value: groups.reduce((acc, group) => (acc << 16n) | BigInt(`0x${group}`), 0n) };
}

function parseIpv4(text: string): bigint {
  return text.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(octet), 0n);
}

/** `::ffff:a.b.c.d` is the IPv4 host a.b.c.d for allowlist matching. */
function unmapIpv4(ip: ParsedIp): ParsedIp {
  if (ip.family === 6 && ip.value >> 32n === 0xffffn) return { family: 4, value: ip.value & 0xffff_ffffn };
  return ip;
}

function inRange(value: bigint, base: bigint, prefix: number, bits: number): boolean {
  const shift = BigInt(bits - prefix);
  return value >> shift === base >> shift;
}

function matchRange(ranges: readonly Range[], value: bigint, bits: number): string | undefined {
  return ranges.find((range) => inRange(value, range.base, range.prefix, bits))?.reason;
}

function stripBrackets(text: string): string {
  return text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
}

function v4Range(cidr: string, reason: string): Range {
  const [address = '', prefix = ''] = cidr.split('/');
  return { base: parseIpv4(address), prefix: Number(prefix), reason };
}

function v6Range(cidr: string, reason: string): Range {
  const [address = '', prefix = ''] = cidr.split('/');
  const parsed = parseIp(address);
  if (parsed?.family !== 6) throw new Error(`bad built-in IPv6 range ${cidr}`);
  return { base: parsed.value, prefix: Number(prefix), reason };
}
