import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Development and test certificates for mutual TLS (`npm start -- --tls`, `auth:cli issue-dev-certificate`, the
 * tests): a development CA, server certificates for localhost and client certificates, all P-256 ECDSA, made with
 * the `openssl` command line (OpenSSL 3 on PATH). Nothing here runs in a deployed service: production certificates
 * come from the operator's own PKI, and the services only read them (Node's crypto.X509Certificate).
 */
export interface CertificateFiles {
  certPath: string;
  keyPath: string;
  certPem: string;
  keyPem: string;
}

function openssl(args: string[], cwd?: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
    if (e.code === 'ENOENT') throw new Error('the openssl command is needed to make development certificates (install OpenSSL 3)');
    throw new Error(`openssl ${args[0]} failed: ${e.stderr?.toString().trim() ?? e.message}`);
  }
}

/** `dir` private (0700); the directories above it, when made, get the usual mode (the data root is shared with PostgreSQL). */
function privateDir(dir: string): void {
  mkdirSync(path.dirname(dir), { recursive: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

const files = (certPath: string, keyPath: string): CertificateFiles => ({
  certPath,
  keyPath,
  certPem: readFileSync(certPath, 'utf8'),
  keyPem: readFileSync(keyPath, 'utf8'),
});

/** A development CA in `dir` (`ca.pem`, `ca-key.pem`): the one there is kept, else a new one (10 years). */
export function ensureDevCa(dir: string, commonName = 'DTP development CA'): CertificateFiles {
  const certPath = path.join(dir, 'ca.pem');
  const keyPath = path.join(dir, 'ca-key.pem');
  if (existsSync(certPath) && existsSync(keyPath)) return files(certPath, keyPath);
  privateDir(dir);
  openssl([
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '3650',
    '-subj', `/CN=${commonName}`, '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
  ]); // prettier-ignore
  return files(certPath, keyPath);
}

export interface IssueOptions {
  /** The CA that signs (ensureDevCa); omitted: the certificate is self-signed. */
  ca?: Pick<CertificateFiles, 'certPath' | 'keyPath'>;
  /** Where `<name>.pem` and `<name>-key.pem` are written. */
  outDir: string;
  name: string;
  commonName: string;
  usage: 'server' | 'client';
  /** Server certificates: the names it is valid for (default localhost, 127.0.0.1, ::1). */
  hosts?: string[];
  /** Validity (default: from an hour ago, for 825 days). A window in the past makes an expired certificate. */
  notBefore?: Date;
  notAfter?: Date;
}

const opensslTime = (d: Date) =>
  d
    .toISOString()
    .replace(/[-:T]/g, '')
    .replace(/\.\d{3}/, '');
const subjectPart = (s: string) => s.replace(/[/\\=+,]/g, ' ').slice(0, 64);

/** A server or client certificate and its new key, signed by `ca` (or self-signed). */
export function issueDevCertificate(opts: IssueOptions): CertificateFiles {
  privateDir(opts.outDir);
  const certPath = path.join(opts.outDir, `${opts.name}.pem`);
  const keyPath = path.join(opts.outDir, `${opts.name}-key.pem`);
  const work = mkdtempSync(path.join(tmpdir(), 'dtp-dev-ca-'));
  try {
    const hosts = opts.hosts ?? ['localhost', '127.0.0.1', '::1'];
    const san = hosts.map((h) => (/^[\d.]+$|:/.test(h) ? `IP:${h}` : `DNS:${h}`)).join(',');
    const ext = [
      'basicConstraints = CA:FALSE',
      'keyUsage = critical, digitalSignature',
      `extendedKeyUsage = ${opts.usage === 'server' ? 'serverAuth' : 'clientAuth'}`,
      ...(opts.usage === 'server' ? [`subjectAltName = ${san}`] : []),
    ];
    const csr = path.join(work, 'req.csr');
    openssl([
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      csr,
      '-subj',
      `/CN=${subjectPart(opts.commonName)}`,
    ]);
    const notBefore = opts.notBefore ?? new Date(Date.now() - 3600_000);
    const notAfter = opts.notAfter ?? new Date(notBefore.getTime() + 825 * 86400_000);
    writeFileSync(path.join(work, 'index.txt'), '');
    writeFileSync(path.join(work, 'serial'), `${[...Array(32)].map(() => Math.floor(Math.random() * 16).toString(16)).join('')}\n`);
    writeFileSync(
      path.join(work, 'ca.cnf'),
      [
        '[ca]',
        'default_ca = dev',
        '[dev]',
        `database = ${path.join(work, 'index.txt')}`,
        `new_certs_dir = ${work}`,
        `serial = ${path.join(work, 'serial')}`,
        'default_md = sha256',
        'policy = any',
        'unique_subject = no',
        '[any]',
        'commonName = supplied',
        '[ext]',
        ...ext,
        '',
      ].join('\n'),
    );
    openssl([
      'ca', '-batch', '-notext', '-config', path.join(work, 'ca.cnf'), '-extensions', 'ext', '-in', csr, '-out', certPath,
      '-startdate', opensslTime(notBefore), '-enddate', opensslTime(notAfter),
      ...(opts.ca ? ['-cert', opts.ca.certPath, '-keyfile', opts.ca.keyPath] : ['-selfsign', '-keyfile', keyPath]),
    ]); // prettier-ignore
    return files(certPath, keyPath);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
