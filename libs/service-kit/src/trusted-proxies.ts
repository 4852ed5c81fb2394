import { BlockList, isIP } from 'node:net';

/** Names for common ranges, as in proxy-addr (Fastify's). */
const NAMED_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/**
 * An address as written by a socket or a proxy, reduced to a bare IP: IPv4-mapped IPv6 (`::ffff:1.2.3.4`) becomes
 * IPv4, an IPv6 zone (`%eth0`) is dropped, and the port forms some proxies write (`1.2.3.4:5678`, `[::1]:80`)
 * lose their port. Undefined when it is not an IP address at all.
 */
export function normaliseAddress(value: string | undefined): string | undefined {
  if (!value) return undefined;
  let a = value.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(a);
  if (bracketed) a = bracketed[1];
  else if (/^[\d.]+:\d{1,5}$/.test(a)) a = a.slice(0, a.lastIndexOf(':'));
  a = a.replace(/%[\w.-]+$/, '');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(a);
  if (mapped) a = mapped[1];
  const family = isIP(a);
  if (family === 0) return undefined;
  return family === 6 ? a.toLowerCase() : a;
}

function isRange(entry: string): boolean {
  const [ip, bits, extra] = entry.split('/');
  const family = isIP(ip);
  if (family === 0 || extra !== undefined) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * TRUSTED_PROXIES, the one parser every service uses (Fastify's `request.ip` and HSTS, auth's token limits): the
 * proxies whose `X-Forwarded-For` entries are believed, as IPs, CIDRs and the names `loopback`, `linklocal`,
 * `uniquelocal`. With none (the default) the client's address is the socket's peer and `X-Forwarded-For` is
 * ignored, so a client that reaches the service directly cannot pick its own address.
 */
export class TrustedProxies {
  private readonly list = new BlockList();

  private constructor(readonly entries: readonly string[]) {
    for (const entry of entries) {
      for (const range of NAMED_RANGES[entry] ?? [entry]) {
        const [written, bits] = range.split('/');
        const ip = bits === undefined ? (normaliseAddress(written) ?? written) : written;
        const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
        if (bits === undefined) this.list.addAddress(ip, family);
        else this.list.addSubnet(ip, Number(bits), family);
      }
    }
  }

  /** Parses a comma-separated list; throws an Error naming the first entry that is not an IP, a CIDR or a name. */
  static parse(spec: string | undefined): TrustedProxies {
    const entries = (spec ?? '')
      .split(',')
      .map((e) => e.trim().toLowerCase())
      .filter((e) => e !== '');
    for (const entry of entries) {
      if (!(entry in NAMED_RANGES) && !isRange(entry)) throw new Error(`not an IP address, a CIDR range or one of loopback, linklocal, uniquelocal: ${entry}`);
    }
    return new TrustedProxies(entries);
  }

  /** Whether `address` (in any of the forms normaliseAddress reads) is a listed proxy. */
  trusts(address: string): boolean {
    const ip = normaliseAddress(address);
    return ip !== undefined && this.list.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4');
  }

  /**
   * The client's address: the socket's peer, unless that peer is a trusted proxy; then `X-Forwarded-For` is read
   * right to left (the rightmost entry was written by the nearest proxy), skipping trusted hops only, and the
   * first untrusted address is the client. An entry that is not an IP stops the walk at the last trusted hop
   * (whatever lies to its left was written by someone we cannot vouch for).
   */
  clientAddress(socketAddress: string | undefined, forwardedFor: string | string[] | undefined): string {
    let address = normaliseAddress(socketAddress);
    if (address === undefined) return 'unknown';
    if (this.entries.length === 0 || !this.trusts(address)) return address;
    const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? '');
    const hops = header.split(',').reverse();
    for (const hop of hops) {
      const next = normaliseAddress(hop);
      if (next === undefined) return address;
      address = next;
      if (!this.trusts(address)) return address;
    }
    return address;
  }

  /**
   * The `trustProxy` function Fastify calls for the socket peer (hop 0) and then each `X-Forwarded-For` entry from
   * the right: true while the address is a listed proxy. With no entries it trusts nothing, so `request.ip` is the
   * socket peer and `request.protocol` ignores `X-Forwarded-Proto`.
   */
  trustFunction(): (address: string, hop: number) => boolean {
    if (this.entries.length === 0) return () => false;
    return (address: string) => this.trusts(address ?? '');
  }
}
