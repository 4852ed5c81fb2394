import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureDevCa, issueDevCertificate, x5tS256 } from '@dtp/service-kit';
import { startTestStack } from '@dtp/test-stack';
import { onboard, sqlRows, TEST_ISSUER, TestStack } from '@dtp/testing';
import { runCli } from '../src/cli/commands';

/**
 * `auth:cli` for legacy (mutual TLS) participants: onboarding with --integration-started-at, a development client
 * certificate issued by the `npm start -- --tls` CA and registered, registration of a PEM file, listing, removal,
 * and the 409 for a participant onboarded after 2023-06-30. Each change writes `client_certificate.changed`.
 */
async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { AUTH_ISSUER: TEST_ISSUER, ...env }, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('auth:cli client certificates', () => {
  let stack: TestStack;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth'] });
    dir = mkdtempSync(path.join(tmpdir(), 'dtp-cert-cli-'));
    env = { DATABASE_URL: stack.databases.auth! };
  });

  afterAll(async () => {
    await stack?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('onboards a legacy participant, issues and registers a development certificate, lists and removes it', async () => {
    const onboarded = await cli(['onboard', '--name', 'Legacy ERP', '--role', 'retailer', '--integration-started-at', '2022-01-10T00:00:00Z'], env);
    expect(onboarded.code).toBe(0);
    const { participant_id } = JSON.parse(onboarded.out) as { participant_id: string };
    const caDir = path.join(dir, 'tls');
    const issued = await cli(['issue-dev-certificate', '--participant', participant_id, '--ca-dir', caDir], env);
    expect(issued.code).toBe(0);
    const cert = JSON.parse(issued.out) as { certificate_id: string; x5t_s256: string; certificate_file: string; key_file: string; ca_file: string };
    const ca = ensureDevCa(caDir); // the one the command made
    const x509 = new X509Certificate(readFileSync(cert.certificate_file, 'utf8'));
    expect(x509.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
    expect(cert.x5t_s256).toBe(x5tS256(x509.raw));
    expect(cert.ca_file).toBe(ca.certPath);

    const listed = await cli(['list-certificates', '--participant', participant_id], env);
    expect(JSON.parse(listed.out)).toEqual({ certificates: [expect.objectContaining({ certificate_id: cert.certificate_id, x5t_s256: cert.x5t_s256 })] });
    const removed = await cli(['remove-certificate', '--participant', participant_id, '--certificate', cert.certificate_id], env);
    expect(removed.code).toBe(0);
    expect(JSON.parse((await cli(['list-certificates', '--participant', participant_id], env)).out)).toEqual({ certificates: [] });

    const events = await sqlRows<{ revision: number }>(
      stack.databases.auth!,
      `SELECT revision::int AS revision FROM outbox WHERE event_type = 'client_certificate.changed' AND key = $1 ORDER BY id`,
      [cert.certificate_id],
    );
    expect(events.map((e) => e.revision)).toEqual([1, 2]);
  });

  it('registers a PEM file; refuses a participant onboarded after 2023-06-30 (exit 1, mtls_not_allowed) and bad options (exit 2)', async () => {
    const file = issueDevCertificate({ outDir: dir, name: 'self', commonName: 'self-signed erp', usage: 'client' });
    const legacy = await onboard(stack, 'producer', { integration_started_at: '2020-05-05T00:00:00Z' });
    // The participant id as SQL Server writes UUIDs (uppercase): stored and published lowercase, as every service compares it.
    const ok = await cli(['register-certificate', '--participant', legacy.participant_id.toUpperCase(), '--certificate-file', file.certPath], env);
    expect(ok.code).toBe(0);
    const registered = JSON.parse(ok.out) as { certificate_id: string; subject: string };
    expect(registered).toMatchObject({ subject: 'CN=self-signed erp' });
    const published = await sqlRows<{ participant_id: string }>(
      stack.databases.auth!,
      `SELECT payload->'data'->>'participant_id' AS participant_id FROM outbox WHERE event_type = 'client_certificate.changed' AND key = $1`,
      [registered.certificate_id],
    );
    expect(published).toEqual([{ participant_id: legacy.participant_id }]);

    const fresh = await onboard(stack, 'producer');
    const refused = await cli(['register-certificate', '--participant', fresh.participant_id, '--certificate-file', file.certPath], env);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.err)).toMatchObject({ reason: 'mtls_not_allowed' });

    expect((await cli(['register-certificate', '--participant', legacy.participant_id, '--certificate-file', path.join(dir, 'none.pem')], env)).code).toBe(2);
    expect((await cli(['remove-certificate', '--participant', legacy.participant_id, '--certificate', 'x'], env)).code).toBe(2);
    const badDate = await cli(['onboard', '--name', 'X', '--role', 'producer', '--integration-started-at', 'yesterday'], env);
    expect(badDate.code).toBe(2);
    expect(badDate.err).toContain('integration_started_at');
  });
});
