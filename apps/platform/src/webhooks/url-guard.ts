import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * SSRF rules for webhook URLs (DESIGN.md "Events out...": SSRF). When private targets are not allowed (live,
 * sandbox, NODE_ENV=production): https only, and every address the host resolves to must be public: no loopback,
 * private (RFC 1918, ULA), link-local (cloud metadata included), CGNAT, multicast, unspecified or reserved address.
 * Checked when a webhook is saved and again at every connection, which then goes to the very address checked (so a
 * name that resolves to a public address first and a private one later, DNS rebinding, cannot reach the private one).
 */
const BLOCKED = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['2001:db8::', 32],
  ['fd00:ec2::254', 128],
] as const)
  BLOCKED.addSubnet(net, bits, 'ipv6');

/** Why an address may not be a webhook's target, or null when it may. */
export function blockedAddressReason(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  const blocked = family === 4 ? BLOCKED.check(address, 'ipv4') : BLOCKED.check(address, 'ipv6') || isBlockedMapped(address);
  return blocked ? `resolves to ${address}, a loopback, private, link-local, metadata or reserved address` : null;
}

/** An IPv4-mapped IPv6 address (::ffff:a.b.c.d, or ::ffff:xxxx:yyyy as URLs write it) of a blocked IPv4 address. */
function isBlockedMapped(address: string): boolean {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return BLOCKED.check(dotted[1], 'ipv4');
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return false;
  const hi = parseInt(hex[1], 16);
  const lo = parseInt(hex[2], 16);
  return BLOCKED.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4');
}

export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;
export const systemResolver: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

export class UrlRefused extends Error {}

/** A URL's host as it is looked up or connected to: an IPv6 address without its brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * The address to connect to for `url`: the first the host resolves to. With `allowPrivate` false, the URL must be
 * https and every resolved address public, or UrlRefused says why.
 */
export async function checkedTarget(url: URL, allowPrivate: boolean, resolve: Resolver = systemResolver): Promise<{ address: string; family: number }> {
  if (!allowPrivate && url.protocol !== 'https:') throw new UrlRefused('must use https');
  const host = hostOf(url);
  let addresses: { address: string; family: number }[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await resolve(host);
    } catch (err) {
      throw new UrlRefused(`host ${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  if (addresses.length === 0) throw new UrlRefused(`host ${host} does not resolve`);
  if (!allowPrivate) {
    for (const a of addresses) {
      const why = blockedAddressReason(a.address);
      if (why) throw new UrlRefused(`host ${host} ${why}`);
    }
  }
  return addresses[0];
}
