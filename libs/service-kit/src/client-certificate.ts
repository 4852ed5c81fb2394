import { createHash, X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';

/**
 * The client certificate a request was made with (mutual TLS; DESIGN.md "Legacy integrations: mutual TLS"), as
 * the kit finds it on every request (`request.clientCertificate`): from the TLS handshake of the service's own
 * HTTPS listener, or from the header an ingress forwards it in, believed only from a TRUSTED_PROXIES peer.
 */
export interface ClientCertificate {
  /** RFC 8705 3.1 `x5t#S256`: base64url (no padding) of the SHA-256 of the certificate's DER. */
  x5tS256: string;
  /** Where it came from: this service's TLS handshake, or a trusted proxy's header. */
  source: 'tls' | 'proxy';
}

/** A forwarded certificate that could not be read: the request is refused with this reason (401) if it relies on it. */
export interface UnreadableClientCertificate {
  problem: string;
}

/** The headers a TLS-terminating proxy forwards the client certificate in (URL-encoded PEM): ingress-nginx's first. */
export const FORWARDED_CERTIFICATE_HEADERS = ['ssl-client-cert', 'x-forwarded-client-cert'] as const;

/** RFC 8705 `x5t#S256` of a certificate's DER. */
export function x5tS256(der: Buffer | Uint8Array): string {
  return createHash('sha256').update(der).digest('base64url');
}

/**
 * One PEM certificate parsed (Node's own X.509: `crypto.X509Certificate`), or an Error saying why it is not one.
 * Exactly one `CERTIFICATE` block is accepted: a chain or a key pasted along is refused.
 */
export function parseCertificatePem(pem: string): X509Certificate {
  const blocks = pem.match(/-----BEGIN [A-Z0-9 ]+-----/g) ?? [];
  if (blocks.length === 0) throw new Error('is not a PEM certificate (no -----BEGIN CERTIFICATE----- block)');
  if (blocks.some((b) => b !== '-----BEGIN CERTIFICATE-----')) throw new Error('must hold only a CERTIFICATE block (no private key, no other PEM block)');
  if (blocks.length > 1) throw new Error('must hold exactly one certificate (not a chain)');
  try {
    return new X509Certificate(pem);
  } catch {
    throw new Error('is not a readable X.509 certificate');
  }
}

/** The value of a forwarded certificate header: URL-encoded PEM (ingress-nginx), or Envoy's `...;Cert="<url-encoded PEM>"`. */
export function readForwardedCertificate(value: string): ClientCertificate | UnreadableClientCertificate {
  let encoded = value.trim();
  const envoy = /(?:^|[;,])\s*Cert="?([^";,]+)"?/i.exec(encoded);
  if (envoy) encoded = envoy[1];
  let pem: string;
  try {
    pem = decodeURIComponent(encoded);
  } catch {
    return { problem: 'the forwarded client certificate is not URL-encoded PEM' };
  }
  try {
    return { x5tS256: x5tS256(parseCertificatePem(pem).raw), source: 'proxy' };
  } catch (err) {
    return { problem: `the forwarded client certificate ${(err as Error).message}` };
  }
}

/** The host name of a Host header, lowercased, without its port. */
function hostOf(header: string | string[] | undefined): string {
  const value = (Array.isArray(header) ? header[0] : header) ?? '';
  return value
    .trim()
    .toLowerCase()
    .replace(/:\d+$/, '')
    .replace(/^\[(.*)\]$/, '$1');
}

/** The request as the kit reads it: Node's socket (a TLSSocket on the HTTPS listener) and the headers. */
export interface CertificateRequest {
  raw: { socket: unknown };
  headers: Record<string, string | string[] | undefined>;
}

/**
 * The client certificate of a request, or undefined when it was made without one. The TLS handshake wins; a
 * forwarded header counts only when `trustsPeer(socket address)` (TRUSTED_PROXIES), and is ignored otherwise (anyone
 * can write a header), and, when `proxyHosts` is set, only on requests for those hosts: the hosts whose ingress sets the
 * header itself (ingress-nginx's `auth-tls-pass-certificate-to-upstream`), so that a header a client sends through
 * another ingress of the same controller is not believed. An empty header (ingress-nginx sends one when the client
 * presented no certificate) is none.
 */
export function clientCertificateOf(
  request: CertificateRequest,
  trustsPeer: (address: string) => boolean,
  /** CLIENT_CERT_PROXY_HOSTS: when not empty, a forwarded certificate counts only on requests for these hosts. */
  proxyHosts: readonly string[] = [],
): ClientCertificate | UnreadableClientCertificate | undefined {
  const socket = request.raw.socket as Partial<TLSSocket> | undefined;
  if (socket?.encrypted && typeof socket.getPeerCertificate === 'function') {
    const peer = socket.getPeerCertificate(false);
    if (peer && peer.raw && peer.raw.length > 0) return { x5tS256: x5tS256(peer.raw), source: 'tls' };
  }
  for (const name of FORWARDED_CERTIFICATE_HEADERS) {
    const header = request.headers[name];
    if (header === undefined) continue;
    if (!trustsPeer(socket?.remoteAddress ?? '')) return undefined;
    if (proxyHosts.length > 0 && !proxyHosts.includes(hostOf(request.headers.host))) return undefined;
    const value = Array.isArray(header) ? header[0] : header;
    if (value === undefined || value.trim() === '') return undefined;
    return readForwardedCertificate(value);
  }
  return undefined;
}
