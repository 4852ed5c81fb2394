import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { inspect } from 'node:util';
import pino from 'pino';
import { checkKafkaSecurityEnv, KafkaConfigError, kafkaSecurityFromEnv, KafkaTransport } from '../src';

/**
 * Kafka TLS and SASL from env (kafka-config.ts): the validation names every bad variable and never prints the
 * password; the options reach kafkajs, proven on the wire against a TLS listener started here (certificates
 * made by openssl for this run) that speaks just enough of the Kafka protocol (ApiVersions, SaslHandshake,
 * SaslAuthenticate) to see what the client sends. Nothing leaves 127.0.0.1.
 */
const PASSWORD = 'S3cr3t-pa55word-never-printed';
const silent = pino({ level: 'silent' });

let dir: string;
const file = (name: string) => path.join(dir, name);

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

/** A CA, a broker certificate it signed (localhost, kafka-0.test, 127.0.0.1), a client certificate, a stranger's key. */
function makeCertificates(): void {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=dtp-test-ca',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  writeFileSync(file('server.ext'), 'subjectAltName=DNS:localhost,DNS:kafka-0.test,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'server.ext',
  );
  writeFileSync(file('client.ext'), 'extendedKeyUsage=clientAuth\n');
  openssl('req', ...ec, '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/CN=dtp-client');
  openssl(
    'x509',
    '-req',
    '-in',
    'client.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'client.pem',
    '-days',
    '2',
    '-extfile',
    'client.ext',
  );
  openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'other.key');
  writeFileSync(file('not-pem.txt'), 'just text\n');
  mkdirSync(file('a-directory'));
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'dtp-kafka-tls-'));
  makeCertificates();
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Problems for `env`, each checked to name `variable` and never to hold the password. */
function problemsOf(env: Record<string, string>): string[] {
  const { problems, warnings, security } = checkKafkaSecurityEnv(env);
  expect(security).toBeUndefined();
  for (const text of [...problems, ...warnings]) expect(text).not.toContain(PASSWORD);
  expect(() => kafkaSecurityFromEnv(env)).toThrow(KafkaConfigError);
  try {
    kafkaSecurityFromEnv(env);
  } catch (err) {
    expect((err as Error).message).not.toContain(PASSWORD);
    expect((err as KafkaConfigError).problems).toEqual(problems);
  }
  return problems;
}

describe('Kafka TLS/SASL configuration from env', () => {
  const tlsEnv = () => ({ KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: file('ca.pem') });
  const scram = { KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'dtp-user', KAFKA_SASL_PASSWORD: PASSWORD };

  it('nothing set: plaintext, no problem, no option for kafkajs', () => {
    expect(checkKafkaSecurityEnv({})).toEqual({ problems: [], warnings: [], security: {} });
    expect(checkKafkaSecurityEnv({ KAFKA_SSL: 'false' })).toEqual({ problems: [], warnings: [], security: {} });
  });

  it('builds ssl (CA bundle, client certificate) and sasl for kafkajs; the password stays out of JSON and inspect', () => {
    const env = { ...tlsEnv(), KAFKA_SSL_CERT_FILE: file('client.pem'), KAFKA_SSL_KEY_FILE: file('client.key'), ...scram };
    const { problems, warnings, security } = checkKafkaSecurityEnv(env);
    expect(problems).toEqual([]);
    expect(warnings).toEqual([]);
    expect(security!.ssl).toEqual({
      rejectUnauthorized: true,
      ca: readFileSync(file('ca.pem'), 'utf8'),
      cert: readFileSync(file('client.pem'), 'utf8'),
      key: readFileSync(file('client.key'), 'utf8'),
    });
    const sasl = security!.sasl as { mechanism: string; username: string; password: string };
    expect(sasl.mechanism).toBe('scram-sha-512');
    expect(sasl.username).toBe('dtp-user');
    expect(sasl.password).toBe(PASSWORD); // kafkajs reads it
    expect(JSON.stringify(security)).not.toContain(PASSWORD);
    expect(inspect(security, { depth: 5 })).not.toContain(PASSWORD);
  });

  it('KAFKA_SSL=true alone trusts the system CAs; mechanisms are case-insensitive; a two-certificate CA bundle is accepted', () => {
    expect(checkKafkaSecurityEnv({ KAFKA_SSL: 'TRUE' }).security).toEqual({ ssl: true });
    const bundle = file('bundle.pem');
    writeFileSync(bundle, readFileSync(file('ca.pem'), 'utf8') + readFileSync(file('server.pem'), 'utf8'));
    const checked = checkKafkaSecurityEnv({ KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: bundle, ...scram, KAFKA_SASL_MECHANISM: 'SCRAM-SHA-256' });
    expect(checked.problems).toEqual([]);
    expect((checked.security!.ssl as tls.ConnectionOptions).ca).toContain('BEGIN CERTIFICATE');
    expect(checked.security!.sasl!.mechanism).toBe('scram-sha-256');
  });

  it.each<[string, string, Record<string, string>, RegExp]>([
    ['KAFKA_SSL not a boolean', 'KAFKA_SSL', { KAFKA_SSL: 'yes' }, /must be "true" or "false"/],
    ['a CA file that does not exist', 'KAFKA_SSL_CA_FILE', { KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: '/nonexistent/ca.pem' }, /does not exist/],
    ['a CA file that cannot be read (a directory)', 'KAFKA_SSL_CA_FILE', { KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: '<dir>/a-directory' }, /directory/],
    ['a CA file without a certificate', 'KAFKA_SSL_CA_FILE', { KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: '<dir>/not-pem.txt' }, /no PEM certificate/],
    ['a CA file while KAFKA_SSL is off', 'KAFKA_SSL_CA_FILE', { KAFKA_SSL_CA_FILE: '<dir>/ca.pem' }, /KAFKA_SSL is not "true"/],
    ['a certificate without its key', 'KAFKA_SSL_CERT_FILE', { KAFKA_SSL: 'true', KAFKA_SSL_CERT_FILE: '<dir>/client.pem' }, /without KAFKA_SSL_KEY_FILE/],
    ['a key without its certificate', 'KAFKA_SSL_KEY_FILE', { KAFKA_SSL: 'true', KAFKA_SSL_KEY_FILE: '<dir>/client.key' }, /without KAFKA_SSL_CERT_FILE/],
    [
      'a key that is not PEM',
      'KAFKA_SSL_KEY_FILE',
      { KAFKA_SSL: 'true', KAFKA_SSL_CERT_FILE: '<dir>/client.pem', KAFKA_SSL_KEY_FILE: '<dir>/not-pem.txt' },
      /not an unencrypted PEM private key/,
    ],
    [
      'a key of another certificate',
      'KAFKA_SSL_KEY_FILE',
      { KAFKA_SSL: 'true', KAFKA_SSL_CERT_FILE: '<dir>/client.pem', KAFKA_SSL_KEY_FILE: '<dir>/other.key' },
      /not the private key/,
    ],
    [
      'a missing key file',
      'KAFKA_SSL_KEY_FILE',
      { KAFKA_SSL: 'true', KAFKA_SSL_CERT_FILE: '<dir>/client.pem', KAFKA_SSL_KEY_FILE: '<dir>/gone.key' },
      /does not exist/,
    ],
    [
      'KAFKA_SSL_REJECT_UNAUTHORIZED not a boolean',
      'KAFKA_SSL_REJECT_UNAUTHORIZED',
      { KAFKA_SSL: 'true', KAFKA_SSL_REJECT_UNAUTHORIZED: 'no' },
      /must be "true" or "false"/,
    ],
    [
      'an unknown mechanism',
      'KAFKA_SASL_MECHANISM',
      { KAFKA_SASL_MECHANISM: 'gssapi', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: PASSWORD },
      /"gssapi" is not supported: use plain, scram-sha-256 or scram-sha-512/,
    ],
    [
      'a mechanism without a username',
      'KAFKA_SASL_USERNAME',
      { KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SASL_PASSWORD: PASSWORD },
      /required with KAFKA_SASL_MECHANISM=scram-sha-256/,
    ],
    [
      'a mechanism without a password',
      'KAFKA_SASL_PASSWORD',
      { KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SASL_USERNAME: 'u' },
      /required with KAFKA_SASL_MECHANISM=scram-sha-256/,
    ],
    [
      'a mechanism with an empty password',
      'KAFKA_SASL_PASSWORD',
      { KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: '' },
      /required/,
    ],
    ['credentials without a mechanism', 'KAFKA_SASL_PASSWORD', { KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: PASSWORD }, /KAFKA_SASL_MECHANISM is not/],
    [
      'SASL PLAIN without TLS in production',
      'KAFKA_SASL_MECHANISM',
      { NODE_ENV: 'production', KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: PASSWORD },
      /clear text/,
    ],
  ])('refuses %s, naming %s', (_what, variable, rawEnv, detail) => {
    const env = Object.fromEntries(Object.entries(rawEnv).map(([k, v]) => [k, v.replace('<dir>', dir)]));
    const problems = problemsOf(env);
    const named = problems.filter((p) => p.startsWith(`${variable} `) || p.startsWith(`${variable}:`) || p.startsWith(`${variable}=`));
    expect(named.length).toBeGreaterThan(0);
    expect(named.some((p) => detail.test(p))).toBe(true);
  });

  it('reports every bad variable at once', () => {
    const problems = problemsOf({
      KAFKA_SSL: 'true',
      KAFKA_SSL_CA_FILE: '/nonexistent/ca.pem',
      KAFKA_SSL_CERT_FILE: file('client.pem'),
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_PASSWORD: PASSWORD,
    });
    expect(problems.map((p) => p.split(/[ :=]/)[0]).sort()).toEqual(['KAFKA_SASL_USERNAME', 'KAFKA_SSL_CA_FILE', 'KAFKA_SSL_CERT_FILE']);
  });

  it('warns (without refusing) about weak settings outside production', () => {
    const plain = checkKafkaSecurityEnv({ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: PASSWORD });
    expect(plain.problems).toEqual([]);
    expect(plain.warnings).toEqual([expect.stringMatching(/^KAFKA_SASL_MECHANISM=plain without KAFKA_SSL=true sends the password in clear text/)]);
    const unverified = checkKafkaSecurityEnv({ KAFKA_SSL: 'true', KAFKA_SSL_REJECT_UNAUTHORIZED: 'false' });
    expect(unverified.security).toEqual({ ssl: { rejectUnauthorized: false } });
    expect(unverified.warnings).toEqual([expect.stringMatching(/^KAFKA_SSL_REJECT_UNAUTHORIZED=false/)]);
  });

  it('KafkaTransport refuses to be built from a bad env (so a service refuses to start), and logs no password', () => {
    const lines: string[] = [];
    const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
    const saved = { ...process.env };
    try {
      Object.assign(process.env, { KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_PASSWORD: PASSWORD });
      delete process.env.KAFKA_SASL_USERNAME;
      expect(() => new KafkaTransport({ clientId: 't', brokers: ['127.0.0.1:9'], logger })).toThrow(/KAFKA_SASL_USERNAME is required/);
      process.env.KAFKA_SASL_USERNAME = 'dtp-user';
      const t = new KafkaTransport({ clientId: 't', brokers: ['127.0.0.1:9'], logger });
      expect(t.kind).toBe('kafka');
      expect(lines.join('\n')).toMatch(/SASL scram-sha-512/);
      expect(lines.join('\n')).not.toContain(PASSWORD);
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });
});

/** What the fake broker saw on one connection. */
interface Seen {
  secure: boolean;
  peerCn?: string;
  apiKeys: number[];
  mechanism?: string;
  authBytes?: Buffer;
}

/**
 * A TLS (or plain TCP) listener that answers ApiVersions and SaslHandshake like a broker and refuses
 * SaslAuthenticate (error 58), recording what arrived; any other request closes the connection.
 */
async function fakeBroker(opts: { tls?: tls.TlsOptions }): Promise<{ port: number; seen: Seen[]; tlsErrors: string[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const tlsErrors: string[] = [];
  const sockets = new Set<net.Socket>();
  const handle = (socket: net.Socket, secure: boolean) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const s: Seen = { secure, apiKeys: [] };
    if (secure) s.peerCn = (socket as tls.TLSSocket).getPeerCertificate()?.subject?.CN as string | undefined;
    seen.push(s);
    let buf = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) {
        const frame = buf.subarray(4, 4 + buf.readInt32BE(0));
        buf = buf.subarray(4 + frame.length);
        const apiKey = frame.readInt16BE(0);
        const correlationId = frame.readInt32BE(4);
        const body = frame.subarray(8 + 2 + frame.readInt16BE(8));
        s.apiKeys.push(apiKey);
        const reply = (payload: Buffer) => {
          const head = Buffer.alloc(8);
          head.writeInt32BE(4 + payload.length, 0);
          head.writeInt32BE(correlationId, 4);
          socket.write(Buffer.concat([head, payload]));
        };
        if (apiKey === 18) {
          // ApiVersions v2: error 0, [ApiVersions 0-2, SaslHandshake 0-1, SaslAuthenticate 0-1], throttle 0
          const apis = [
            [18, 0, 2],
            [17, 0, 1],
            [36, 0, 1],
          ];
          const p = Buffer.alloc(2 + 4 + apis.length * 6 + 4);
          p.writeInt32BE(apis.length, 2);
          apis.forEach(([k, min, max], i) => {
            p.writeInt16BE(k, 6 + i * 6);
            p.writeInt16BE(min, 8 + i * 6);
            p.writeInt16BE(max, 10 + i * 6);
          });
          reply(p);
        } else if (apiKey === 17) {
          s.mechanism = body.subarray(2, 2 + body.readInt16BE(0)).toString('utf8');
          const m = Buffer.from(s.mechanism);
          const p = Buffer.alloc(2 + 4 + 2 + m.length);
          p.writeInt32BE(1, 2);
          p.writeInt16BE(m.length, 6);
          m.copy(p, 8);
          reply(p);
        } else if (apiKey === 36) {
          s.authBytes = Buffer.from(body.subarray(4, 4 + body.readInt32BE(0)));
          const msg = Buffer.from('denied by the test broker');
          const p = Buffer.alloc(2 + 2 + msg.length + 4 + 8);
          p.writeInt16BE(58, 0); // SASL_AUTHENTICATION_FAILED
          p.writeInt16BE(msg.length, 2);
          msg.copy(p, 4);
          reply(p);
        } else {
          socket.destroy();
        }
      }
    });
  };
  const server = opts.tls ? tls.createServer(opts.tls, (socket) => handle(socket, true)) : net.createServer((socket) => handle(socket, false));
  server.on('tlsClientError', (err: Error) => tlsErrors.push(err.message));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    seen,
    tlsErrors,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function waitFor<T>(probe: () => T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Starts a readiness check (which connects) and returns once `until` holds; then closes the transport. */
async function connectUntil<T>(transport: KafkaTransport, until: () => T | undefined, what: string): Promise<{ value: T; outcome: Promise<unknown> }> {
  const outcome = transport.check().then(
    () => 'resolved',
    (err: unknown) => err,
  );
  try {
    return { value: await waitFor(until, what), outcome };
  } finally {
    await transport.close();
  }
}

describe('KafkaTransport: the TLS and SASL options reach kafkajs (on the wire, 127.0.0.1 only)', () => {
  const serverTls = (): tls.TlsOptions => ({ key: readFileSync(file('server.key')), cert: readFileSync(file('server.pem')) });
  const transport = (env: Record<string, string>, brokers: string[], extra: Partial<ConstructorParameters<typeof KafkaTransport>[0]> = {}) =>
    new KafkaTransport({ clientId: 'tls-test', brokers, logger: silent, connectionTimeoutMs: 2000, security: kafkaSecurityFromEnv(env), ...extra });

  it('with KAFKA_SSL and the CA bundle: a verified TLS handshake, then the Kafka protocol inside it', async () => {
    const broker = await fakeBroker({ tls: serverTls() });
    try {
      const t = transport({ KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: file('ca.pem') }, [`localhost:${broker.port}`]);
      const { value } = await connectUntil(t, () => broker.seen.find((s) => s.apiKeys.includes(18)), 'an ApiVersions request over TLS');
      expect(value.secure).toBe(true);
      expect(broker.tlsErrors).toEqual([]);
    } finally {
      await broker.close();
    }
  });

  it('without the CA (system trust store only) the handshake is refused: the broker certificate is checked', async () => {
    const broker = await fakeBroker({ tls: serverTls() });
    try {
      const t = transport({ KAFKA_SSL: 'true' }, [`localhost:${broker.port}`]);
      const { outcome } = await connectUntil(t, () => broker.tlsErrors[0], 'the client to abort the handshake');
      expect(broker.seen).toEqual([]);
      expect(await outcome).toBeInstanceOf(Error);
    } finally {
      await broker.close();
    }
  });

  it('KAFKA_SSL_REJECT_UNAUTHORIZED=false connects without the CA (not verified)', async () => {
    const broker = await fakeBroker({ tls: serverTls() });
    try {
      const t = transport({ KAFKA_SSL: 'true', KAFKA_SSL_REJECT_UNAUTHORIZED: 'false' }, [`localhost:${broker.port}`]);
      const { value } = await connectUntil(t, () => broker.seen.find((s) => s.apiKeys.includes(18)), 'an ApiVersions request over TLS');
      expect(value.secure).toBe(true);
    } finally {
      await broker.close();
    }
  });

  it('presents the client certificate to a broker that requires one (mTLS)', async () => {
    const broker = await fakeBroker({ tls: { ...serverTls(), requestCert: true, rejectUnauthorized: true, ca: readFileSync(file('ca.pem')) } });
    try {
      const t = transport(
        { KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: file('ca.pem'), KAFKA_SSL_CERT_FILE: file('client.pem'), KAFKA_SSL_KEY_FILE: file('client.key') },
        [`localhost:${broker.port}`],
      );
      const { value } = await connectUntil(t, () => broker.seen.find((s) => s.apiKeys.includes(18)), 'an ApiVersions request over mTLS');
      expect(value.peerCn).toBe('dtp-client');
    } finally {
      await broker.close();
    }
  });

  it('SASL PLAIN over TLS: the mechanism, the username and the password reach the broker', async () => {
    const broker = await fakeBroker({ tls: serverTls() });
    try {
      const t = transport(
        { KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: file('ca.pem'), KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'dtp-user', KAFKA_SASL_PASSWORD: PASSWORD },
        [`localhost:${broker.port}`],
      );
      const { value, outcome } = await connectUntil(t, () => broker.seen.find((s) => s.authBytes), 'SaslAuthenticate');
      expect(value.secure).toBe(true);
      expect(value.mechanism).toBe('PLAIN');
      expect(value.authBytes!.toString('utf8')).toBe(`\u0000dtp-user\u0000${PASSWORD}`);
      expect(String(await outcome)).not.toContain(PASSWORD);
    } finally {
      await broker.close();
    }
  });

  it('SASL SCRAM-SHA-512 (plaintext listener): the SCRAM client-first message names the user', async () => {
    const broker = await fakeBroker({});
    try {
      const t = transport({ KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'dtp-user', KAFKA_SASL_PASSWORD: PASSWORD }, [
        `127.0.0.1:${broker.port}`,
      ]);
      const { value } = await connectUntil(t, () => broker.seen.find((s) => s.authBytes), 'SaslAuthenticate');
      expect(value.secure).toBe(false);
      expect(value.mechanism).toBe('SCRAM-SHA-512');
      expect(value.authBytes!.toString('utf8')).toMatch(/^n,,n=dtp-user,r=[\x21-\x2b\x2d-\x7e]+$/);
    } finally {
      await broker.close();
    }
  });

  it("through KAFKA_CONNECT_VIA the certificate is still checked against the broker's own name", async () => {
    const broker = await fakeBroker({ tls: serverTls() });
    try {
      const t = transport({ KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: file('ca.pem') }, ['kafka-0.test:9093'], {
        connectVia: { 'kafka-0.test:9093': `127.0.0.1:${broker.port}` },
      });
      const { value } = await connectUntil(t, () => broker.seen.find((s) => s.apiKeys.includes(18)), 'an ApiVersions request through the forward');
      expect(value.secure).toBe(true);
      // A name the certificate does not hold is refused, forward or not.
      const other = transport({ KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: file('ca.pem') }, ['kafka-9.test:9093'], {
        connectVia: { 'kafka-9.test:9093': `127.0.0.1:${broker.port}` },
      });
      const before = broker.seen.length;
      const { outcome } = await connectUntil(other, () => broker.tlsErrors[0], 'the client to refuse the name');
      expect(broker.seen.length).toBe(before);
      expect(await outcome).toBeInstanceOf(Error);
    } finally {
      await broker.close();
    }
  });
});
