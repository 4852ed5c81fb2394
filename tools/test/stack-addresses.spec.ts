import net from 'node:net';
import { AddressError, portsInUse, stackAddresses } from '../stack-addresses';

describe('stackAddresses (one source of addresses for npm start and start:kafka)', () => {
  it('derives the issuer, audiences, JWKS and public base addresses from the ports', () => {
    const a = stackAddresses({ AUTH_PORT: '4001', PLATFORM_PORT: '4002', SEARCH_PORT: '4003', GIS_PORT: '4004' });
    expect(a.ports).toEqual({ auth: 4001, platform: 4002, search: 4003, gis: 4004 });
    expect(a.shared).toMatchObject({
      AUTH_ISSUER: 'http://localhost:4001',
      AUTH_JWKS_URL: 'http://localhost:4001/.well-known/jwks.json',
      PLATFORM_AUDIENCE: 'http://localhost:4002',
      SEARCH_AUDIENCE: 'http://localhost:4003/v1',
      GIS_AUDIENCE: 'http://localhost:4004',
      SEARCH_PUBLIC_URL: 'http://localhost:4003',
      PLATFORM_PUBLIC_URL: 'http://localhost:4002',
    });
    expect(a.envFor('platform')).toMatchObject({ PORT: '4002', PUBLIC_BASE_URL: 'http://localhost:4002' });
    expect(a.envFor('gis')).toMatchObject({ PORT: '4004', PUBLIC_BASE_URL: 'http://localhost:4004' });
    expect(a.envFor('search').PUBLIC_BASE_URL).toBeUndefined();
    expect(a.envFor('auth').PORT).toBe('4001');
  });

  it('keeps the defaults 3001-3004 when nothing is set', () => {
    const a = stackAddresses({});
    expect(a.publicUrls).toEqual({
      auth: 'http://localhost:3001',
      platform: 'http://localhost:3002',
      search: 'http://localhost:3003',
      gis: 'http://localhost:3004',
    });
  });

  it('takes each public address from <SERVICE>_PUBLIC_URL, while the JWKS stays on loopback', () => {
    const a = stackAddresses({ AUTH_PORT: '5001', AUTH_PUBLIC_URL: 'https://auth.example.com/', SEARCH_PUBLIC_URL: 'https://search.example.com' });
    expect(a.shared.AUTH_ISSUER).toBe('https://auth.example.com');
    expect(a.shared.AUTH_JWKS_URL).toBe('http://localhost:5001/.well-known/jwks.json');
    expect(a.shared.SEARCH_AUDIENCE).toBe('https://search.example.com/v1');
    expect(a.shared.PLATFORM_AUDIENCE).toBe('http://localhost:3002');
  });

  it('describes the addresses for the banner, the public ones only when some were set', () => {
    expect(stackAddresses({ AUTH_PORT: '4001' }).describe()).toEqual([
      '  token issuer http://localhost:4001   (signing keys fetched from http://localhost:4001/.well-known/jwks.json)',
      '  audiences    platform http://localhost:3002   search http://localhost:3003/v1   gis http://localhost:3004',
    ]);
    expect(stackAddresses({ GIS_PUBLIC_URL: 'https://gis.example.com' }).describe()[0]).toBe(
      '  public addresses: auth http://localhost:3001   platform http://localhost:3002   search http://localhost:3003   gis https://gis.example.com',
    );
  });

  it('lets a derived variable set explicitly win', () => {
    expect(stackAddresses({ AUTH_ISSUER: 'https://issuer.example.com' }).shared.AUTH_ISSUER).toBe('https://issuer.example.com');
  });

  it('refuses bad ports, bad URLs, clashing ports and the shared PUBLIC_BASE_URL, naming every variable', () => {
    let err: unknown;
    try {
      stackAddresses({ AUTH_PORT: '70000', PLATFORM_PUBLIC_URL: 'ftp://x', GIS_PUBLIC_URL: 'not a url', SEARCH_PORT: '3004', PUBLIC_BASE_URL: 'http://x' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AddressError);
    const msg = (err as Error).message;
    expect(msg).toContain('AUTH_PORT');
    expect(msg).toContain('PLATFORM_PUBLIC_URL: must be an http or https URL');
    expect(msg).toContain('GIS_PUBLIC_URL');
    expect(msg).toContain("GIS_PORT: 3004 is already search's port");
    expect(msg).toContain('PUBLIC_BASE_URL: not used by the runners');
  });
});

describe('portsInUse (the runners look at their ports before starting anything)', () => {
  it('names the variable of a port another socket listens on; leaves values that are not ports to the configuration', async () => {
    // (That a free port passes is what every start in start.spec.ts relies on: a port is only known to be free while
    // something holds it.)
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
    const held = (holder.address() as net.AddressInfo).port;
    try {
      const problems = await portsInUse({ AUTH_PORT: held, SEARCH_TLS_PORT: Number.NaN, GIS_PORT: 70000, PLATFORM_PORT: 0 });
      expect(problems).toEqual([`AUTH_PORT: port ${held} is already in use by another process (stop it, or set AUTH_PORT to another port)`]);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
