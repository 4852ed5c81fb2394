import { readFileSync } from 'node:fs';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { createServer, Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A service's own HTTPS listener (DESIGN.md "Legacy integrations: mutual TLS"): beside its plain port, on
 * `<SERVICE>_TLS_PORT`, with the server certificate and key of TLS_CERT_FILE and TLS_KEY_FILE. It asks every client
 * for a certificate and accepts any (or none): whether a certificate is worth anything is decided per request by
 * its registration (auth's token endpoint, the guard's legacy mode and certificate-bound tokens), not by a CA.
 * TLS_CLIENT_CA_FILE, when set, names the CAs the handshake suggests to clients (their certificates are still
 * accepted whoever issued them).
 */
export interface TlsSettings {
  TLS_CERT_FILE?: string;
  TLS_KEY_FILE?: string;
  TLS_CLIENT_CA_FILE?: string;
  PORT?: number;
  /** The service's `<SERVICE>_TLS_PORT` and its variable's name (for messages). */
  tlsPort?: number;
  tlsPortVariable: string;
}

function readable(name: string, file: string): { text?: string; problem?: string } {
  try {
    return { text: readFileSync(file, 'utf8') };
  } catch (err) {
    return { problem: `${name}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
}

/** Why the TLS settings cannot serve HTTPS, or undefined when they can (or HTTPS is off: none of them set). */
export function tlsProblem(s: TlsSettings): string | undefined {
  const port = s.tlsPort;
  if (!s.TLS_CERT_FILE && !s.TLS_KEY_FILE && port === undefined) {
    return s.TLS_CLIENT_CA_FILE ? 'TLS_CLIENT_CA_FILE is set but HTTPS is off: set TLS_CERT_FILE, TLS_KEY_FILE and ' + s.tlsPortVariable : undefined;
  }
  if (!s.TLS_CERT_FILE || !s.TLS_KEY_FILE || port === undefined) {
    return `HTTPS needs TLS_CERT_FILE, TLS_KEY_FILE and ${s.tlsPortVariable} together (missing: ${[
      !s.TLS_CERT_FILE && 'TLS_CERT_FILE',
      !s.TLS_KEY_FILE && 'TLS_KEY_FILE',
      port === undefined && s.tlsPortVariable,
    ]
      .filter(Boolean)
      .join(', ')})`;
  }
  if (port !== 0 && port === s.PORT) return `${s.tlsPortVariable} must differ from PORT (${port})`;
  const cert = readable('TLS_CERT_FILE', s.TLS_CERT_FILE);
  if (cert.problem) return cert.problem;
  const key = readable('TLS_KEY_FILE', s.TLS_KEY_FILE);
  if (key.problem) return key.problem;
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert.text!);
  } catch {
    return `TLS_CERT_FILE: ${s.TLS_CERT_FILE} is not a PEM certificate`;
  }
  try {
    if (!x509.checkPrivateKey(createPrivateKey(key.text!))) return `TLS_KEY_FILE: ${s.TLS_KEY_FILE} is not the key of the certificate in TLS_CERT_FILE`;
  } catch {
    return `TLS_KEY_FILE: ${s.TLS_KEY_FILE} is not an unencrypted PEM private key`;
  }
  if (s.TLS_CLIENT_CA_FILE) {
    const ca = readable('TLS_CLIENT_CA_FILE', s.TLS_CLIENT_CA_FILE);
    if (ca.problem) return ca.problem;
    try {
      new X509Certificate(ca.text!);
    } catch {
      return `TLS_CLIENT_CA_FILE: ${s.TLS_CLIENT_CA_FILE} is not a PEM certificate`;
    }
  }
  return undefined;
}

/**
 * Starts the HTTPS listener of a service whose settings passed `tlsProblem`: every request goes to the same
 * Fastify routing as the plain port (hooks, guard, handlers), its TLS socket carrying the client certificate.
 */
export async function startTlsListener(
  s: Required<Pick<TlsSettings, 'TLS_CERT_FILE' | 'TLS_KEY_FILE'>> & Pick<TlsSettings, 'TLS_CLIENT_CA_FILE'>,
  port: number,
  host: string,
  route: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer(
    {
      cert: readFileSync(s.TLS_CERT_FILE),
      key: readFileSync(s.TLS_KEY_FILE),
      ...(s.TLS_CLIENT_CA_FILE ? { ca: readFileSync(s.TLS_CLIENT_CA_FILE) } : {}),
      requestCert: true,
      rejectUnauthorized: false,
      minVersion: 'TLSv1.2',
    },
    route,
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return { server, url: `https://localhost:${typeof address === 'object' && address ? address.port : port}` };
}

/** Stops the listener: no new connections, idle ones closed at once, the rest once they finish (at most `graceMs`). */
export async function closeTlsListener(server: Server, graceMs = 2000): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), graceMs);
  await closed;
  clearTimeout(timer);
}
