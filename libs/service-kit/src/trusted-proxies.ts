import { BlockList, isIP } from 'node:net';

/** Names for common ranges, as in proxy-addr (Fastify's) and auth's TRUSTED_PROXIES. */
const NAMED_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** A socket or header address as a bare IP (IPv4-mapped IPv6 as IPv4, no zone), or undefined. */
function bareIp(value: string): string | undefined {
  let a = value.trim().replace(/%[\w.-]+$/, '');
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
 * TRUSTED_PROXIES (comma-separated IPs, CIDR ranges, or `loopback`, `linklocal`, `uniquelocal`; the same variable
 * and format auth reads for its token limits), parsed. Throws an Error naming the first entry that is none of those.
 */
export function parseTrustedProxies(spec: string | undefined): string[] {
  const entries = (spec ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '');
  for (const entry of entries) {
    if (!(entry in NAMED_RANGES) && !isRange(entry)) {
      throw new Error(`not an IP address, a CIDR range or one of loopback, linklocal, uniquelocal: ${entry}`);
    }
  }
  return entries;
}

/**
 * The `trustProxy` function Fastify calls for the socket peer (hop 0) and then each `X-Forwarded-For` entry from
 * the right: true while the address is a listed proxy. With no entries it trusts nothing, so `request.ip` is the
 * socket peer and `request.protocol` ignores `X-Forwarded-Proto`.
 */
export function trustFunction(entries: readonly string[]): (address: string, hop: number) => boolean {
  if (entries.length === 0) return () => false;
  const list = new BlockList();
  for (const entry of entries) {
    for (const range of NAMED_RANGES[entry] ?? [entry]) {
      const [written, bits] = range.split('/');
      const ip = bits === undefined ? (bareIp(written) ?? written) : written;
      const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
      if (bits === undefined) list.addAddress(ip, family);
      else list.addSubnet(ip, Number(bits), family);
    }
  }
  return (address: string) => {
    const ip = bareIp(address ?? '');
    return ip !== undefined && list.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4');
  };
}
