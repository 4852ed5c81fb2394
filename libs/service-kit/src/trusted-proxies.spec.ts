import { normaliseAddress, TrustedProxies } from './trusted-proxies';

describe('client address behind TRUSTED_PROXIES', () => {
  it('normalises what sockets and proxies write', () => {
    expect(normaliseAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(normaliseAddress(' 203.0.113.7 ')).toBe('203.0.113.7');
    expect(normaliseAddress('203.0.113.7:5678')).toBe('203.0.113.7');
    expect(normaliseAddress('[2001:DB8::1]:443')).toBe('2001:db8::1');
    expect(normaliseAddress('[2001:db8::1]')).toBe('2001:db8::1');
    expect(normaliseAddress('fe80::1%eth0')).toBe('fe80::1');
    for (const bad of [undefined, '', 'unknown', 'example.com', '1.2.3', '1.2.3.4.5', '"1.2.3.4"', '1.2.3.4\u0000', '::ffff:999.1.1.1']) {
      expect(normaliseAddress(bad)).toBeUndefined();
    }
  });

  it('with no trusted proxy, the socket peer is the client and X-Forwarded-For is ignored', () => {
    const none = TrustedProxies.parse('');
    expect(none.clientAddress('127.0.0.1', '198.51.100.1')).toBe('127.0.0.1');
    expect(none.clientAddress('::ffff:10.0.0.5', '198.51.100.1, 198.51.100.2')).toBe('10.0.0.5');
    expect(none.clientAddress(undefined, '198.51.100.1')).toBe('unknown');
  });

  it('walks X-Forwarded-For right to left, skipping trusted hops only', () => {
    const proxies = TrustedProxies.parse('10.0.0.0/8, 192.0.2.1');
    // the peer is a trusted proxy: the rightmost entry is the client
    expect(proxies.clientAddress('10.1.1.1', '203.0.113.9')).toBe('203.0.113.9');
    // what the client prepended is never reached
    expect(proxies.clientAddress('10.1.1.1', '1.1.1.1, 2.2.2.2, 203.0.113.9')).toBe('203.0.113.9');
    // two trusted hops, then the client
    expect(proxies.clientAddress('10.1.1.1', '6.6.6.6, 203.0.113.9, 192.0.2.1, 10.2.2.2')).toBe('203.0.113.9');
    // several headers are one list
    expect(proxies.clientAddress('10.1.1.1', ['6.6.6.6, 203.0.113.9', '10.2.2.2'])).toBe('203.0.113.9');
    // the peer is not trusted: its X-Forwarded-For is its own invention
    expect(proxies.clientAddress('203.0.113.50', '10.1.1.1, 1.2.3.4')).toBe('203.0.113.50');
    // a trusted peer without the header, or with only trusted entries
    expect(proxies.clientAddress('10.1.1.1', undefined)).toBe('10.1.1.1');
    expect(proxies.clientAddress('10.1.1.1', '10.3.3.3, 10.2.2.2')).toBe('10.3.3.3');
    // garbage stops the walk at the last trusted hop
    expect(proxies.clientAddress('10.1.1.1', '203.0.113.9, not-an-ip, 10.2.2.2')).toBe('10.2.2.2');
    // ports and mapped addresses in entries
    expect(proxies.clientAddress('::ffff:10.1.1.1', '203.0.113.9:4444')).toBe('203.0.113.9');
  });

  it('knows IPv6 ranges and the named ranges', () => {
    const proxies = TrustedProxies.parse('loopback,fd00::/8');
    expect(proxies.clientAddress('::1', '2001:db8::5')).toBe('2001:db8::5');
    expect(proxies.clientAddress('127.0.0.1', '2001:db8::5')).toBe('2001:db8::5');
    expect(proxies.clientAddress('fd12::1', '[2001:db8::6]:99')).toBe('2001:db8::6');
    expect(proxies.clientAddress('fe80::1', '2001:db8::5')).toBe('fe80::1');
    const local = TrustedProxies.parse('uniquelocal, linklocal');
    expect(local.trusts('172.20.1.1')).toBe(true);
    expect(local.trusts('169.254.1.1')).toBe(true);
    expect(local.trusts('8.8.8.8')).toBe(false);
  });

  it('refuses entries that are not IPs, CIDRs or names', () => {
    for (const bad of ['10.0.0.0/33', '::/129', 'example.com', '10.0.0.0/8/1', '10.0.0.0/x', '*', 'all']) {
      expect(() => TrustedProxies.parse(bad)).toThrow(bad.toLowerCase());
    }
    expect(TrustedProxies.parse(' 10.0.0.1 , , ::1 ').entries).toEqual(['10.0.0.1', '::1']);
  });
});
