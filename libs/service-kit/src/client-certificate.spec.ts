import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { clientCertificateOf, parseCertificatePem, readForwardedCertificate, x5tS256 } from './client-certificate';
import { CertificateFiles, ensureDevCa, issueDevCertificate } from './dev-certificates';
import { loadConfig } from './config';
import { BaseServiceConfig } from './service';
import { tlsProblem } from './tls-listener';

/** Client certificates as the kit reads them (handshake, forwarded header) and the TLS settings' start-up checks. */
describe('client certificates and TLS settings', () => {
  let dir: string;
  let ca: CertificateFiles;
  let server: CertificateFiles;
  let client: CertificateFiles;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dtp-kit-tls-'));
    ca = ensureDevCa(dir);
    server = issueDevCertificate({ ca, outDir: dir, name: 'server', commonName: 'localhost', usage: 'server' });
    client = issueDevCertificate({ ca, outDir: dir, name: 'client', commonName: 'erp', usage: 'client' });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const thumbprint = (c: CertificateFiles) => x5tS256(new X509Certificate(c.certPem).raw);

  it('x5t#S256 is the base64url SHA-256 of the DER (RFC 8705 3.1)', () => {
    expect(thumbprint(client)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(thumbprint(client)).not.toBe(thumbprint(server));
  });

  it('parseCertificatePem takes exactly one CERTIFICATE block', () => {
    expect(parseCertificatePem(client.certPem).subject).toBe('CN=erp');
    expect(() => parseCertificatePem('nope')).toThrow(/not a PEM certificate/);
    expect(() => parseCertificatePem(client.certPem + ca.certPem)).toThrow(/exactly one/);
    expect(() => parseCertificatePem(client.keyPem)).toThrow(/only a CERTIFICATE/);
  });

  it('reads a forwarded certificate (URL-encoded PEM, or Envoy Cert="..."), and says why it cannot', () => {
    const encoded = encodeURIComponent(client.certPem);
    expect(readForwardedCertificate(encoded)).toEqual({ x5tS256: thumbprint(client), source: 'proxy' });
    expect(readForwardedCertificate(`By=spiffe://x;Hash=abc;Cert="${encoded}"`)).toEqual({ x5tS256: thumbprint(client), source: 'proxy' });
    expect(readForwardedCertificate('%E0%A4%A')).toEqual({ problem: expect.stringMatching(/URL-encoded/) });
    expect(readForwardedCertificate('garbage')).toEqual({ problem: expect.stringMatching(/forwarded client certificate/) });
  });

  it('believes a forwarded header only from a trusted peer; an empty one is no certificate', () => {
    const request = (headers: Record<string, string>, remoteAddress = '10.0.0.5') => ({ raw: { socket: { remoteAddress } }, headers });
    const header = { 'ssl-client-cert': encodeURIComponent(client.certPem) };
    expect(clientCertificateOf(request(header), () => true)).toEqual({ x5tS256: thumbprint(client), source: 'proxy' });
    expect(clientCertificateOf(request(header), () => false)).toBeUndefined();
    expect(clientCertificateOf(request({ 'ssl-client-cert': '' }), () => true)).toBeUndefined();
    expect(clientCertificateOf(request({}), () => true)).toBeUndefined();
    // CLIENT_CERT_PROXY_HOSTS: only on the hosts whose ingress writes the header itself
    const hosts = ['mtls-api.example.com'];
    expect(clientCertificateOf(request({ ...header, host: 'MTLS-API.example.com:443' }), () => true, hosts)).toEqual({
      x5tS256: thumbprint(client),
      source: 'proxy',
    });
    expect(clientCertificateOf(request({ ...header, host: 'api.example.com' }), () => true, hosts)).toBeUndefined();
  });

  it('TLS settings: none is fine; all three with a matching key are fine; anything else is named at start-up', () => {
    const base = { tlsPortVariable: 'PLATFORM_TLS_PORT', PORT: 3002 };
    expect(tlsProblem(base)).toBeUndefined();
    expect(
      tlsProblem({ ...base, TLS_CERT_FILE: server.certPath, TLS_KEY_FILE: server.keyPath, tlsPort: 3442, TLS_CLIENT_CA_FILE: ca.certPath }),
    ).toBeUndefined();
    expect(tlsProblem({ ...base, TLS_CERT_FILE: server.certPath, tlsPort: 3442 })).toMatch(/missing: TLS_KEY_FILE/);
    expect(tlsProblem({ ...base, TLS_CERT_FILE: server.certPath, TLS_KEY_FILE: server.keyPath })).toMatch(/missing: PLATFORM_TLS_PORT/);
    expect(tlsProblem({ ...base, TLS_CERT_FILE: server.certPath, TLS_KEY_FILE: client.keyPath, tlsPort: 3442 })).toMatch(/not the key of the certificate/);
    expect(tlsProblem({ ...base, TLS_CERT_FILE: path.join(dir, 'none.pem'), TLS_KEY_FILE: server.keyPath, tlsPort: 3442 })).toMatch(/cannot read/);
    expect(tlsProblem({ ...base, TLS_CERT_FILE: server.certPath, TLS_KEY_FILE: server.keyPath, tlsPort: 3002 })).toMatch(/must differ from PORT/);
    const notPem = path.join(dir, 'not.pem');
    writeFileSync(notPem, 'hello');
    expect(tlsProblem({ ...base, TLS_CERT_FILE: notPem, TLS_KEY_FILE: server.keyPath, tlsPort: 3442 })).toMatch(/not a PEM certificate/);
    expect(tlsProblem({ ...base, TLS_CLIENT_CA_FILE: ca.certPath })).toMatch(/HTTPS is off/);
  });

  it("a service's config refuses bad TLS settings with the variable's name", () => {
    class Config extends BaseServiceConfig {
      PLATFORM_TLS_PORT?: number = 3442;
      override get tlsPort() {
        return this.PLATFORM_TLS_PORT;
      }
      override get tlsPortVariable() {
        return 'PLATFORM_TLS_PORT';
      }
    }
    expect(() => loadConfig('platform', Config, { PORT: '3002', TLS_CERT_FILE: server.certPath })).toThrow(/TLS_SETTINGS: HTTPS needs .*missing: TLS_KEY_FILE/);
    expect(loadConfig('platform', Config, { PORT: '3002', TLS_CERT_FILE: server.certPath, TLS_KEY_FILE: server.keyPath }).tlsPort).toBe(3442);
  });
});
