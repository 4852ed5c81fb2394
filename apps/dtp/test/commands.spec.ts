/**
 * The `dtp` commands against a real stack (auth, platform, search, gis on real ports): login profiles, import,
 * ship, inbound, accept and reject, delete with a partial failure, diamonds get/history/files, and a lab's
 * verify and validate --wait. The CLI runs in this process (runCli) to keep the file fast; import.spec.ts runs it
 * as a separate process.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { startTestStack } from '@dtp/test-stack';
import { onboard, ParticipantCredentials, sqlRows, TestStack, tokenFor } from '@dtp/testing';
import { cliEnv, dtp, eventually, stackEnv, tempDir } from './support';

describe('dtp commands against a real stack', () => {
  let stack: TestStack;
  let producer: ParticipantCredentials;
  let maker: ParticipantCredentials;
  let lab: ParticipantCredentials;
  let insurer: ParticipantCredentials;
  let dir: string;
  const env = (who: ParticipantCredentials) => cliEnv(stackEnv(stack, who));
  const json = <T>(stdout: string) => JSON.parse(stdout) as T;

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth', 'platform', 'search', 'gis'] });
    [producer, maker, lab, insurer] = await Promise.all([
      onboard(stack, 'producer'),
      onboard(stack, 'manufacturer'),
      onboard(stack, 'grading_lab'),
      onboard(stack, 'non_participant'),
    ]);
    // Platform learns of participants from auth's events (within moments); shipments need the recipient known.
    await eventually(async () => {
      const rows = await sqlRows(stack.databases.platform!, 'SELECT 1 FROM participants WHERE participant_id = $1', [maker.participant_id]);
      return rows.length > 0 ? true : undefined;
    }, 'platform to know the manufacturer');
    dir = tempDir();
  });
  afterAll(async () => {
    await stack?.close();
  });

  /** Imports `rows` rough diamonds as the producer; answers their ids in line order. */
  async function importRough(name: string, rows: number): Promise<string[]> {
    const file = path.join(dir, `${name}.csv`);
    const lines = ['box_id,participant_id,participant_timestamp,rough.carats,rough.colour'];
    for (let i = 1; i <= rows; i++) lines.push(`${name},${name}-${i},2024-05-02T08:00:00Z,1.${i},G`);
    writeFileSync(file, lines.join('\n'));
    const run = await dtp(['rough', 'import', file], { env: env(producer) });
    expect(run.stderr).toContain(`registered ${rows} of ${rows} rows, 0 failed, 0 invalid skipped`);
    expect(run.code).toBe(0);
    return (parse(readFileSync(path.join(dir, `${name}.result.csv`)), { columns: true }) as { diamond_id: string }[]).map((r) => r.diamond_id);
  }

  describe('login', () => {
    it('stores the profile in a 0600 file (directory 0700) after a token proves the credentials; commands then need no env', async () => {
      const configDir = path.join(tempDir(), 'dtp');
      const base = { ...cliEnv(), DTP_CONFIG_DIR: configDir };
      const run = await dtp(
        [
          '--profile',
          'acme',
          'login',
          '--client-id',
          producer.client_id,
          '--client-secret-stdin',
          '--auth-url',
          stack.urls.auth!,
          '--platform-url',
          stack.urls.platform!,
          '--platform-audience',
          'http://platform.test',
          '--json',
        ],
        { env: base, stdin: `${producer.client_secret}\n` },
      );
      expect(run.code).toBe(0);
      expect(json(run.stdout)).toMatchObject({ profile: 'acme', client_id: producer.client_id, verified_audience: 'http://platform.test' });
      const file = path.join(configDir, 'config.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(configDir).mode & 0o777).toBe(0o700);
      expect(json<{ profiles: Record<string, { client_secret: string }> }>(readFileSync(file, 'utf8')).profiles.acme.client_secret).toBe(
        producer.client_secret,
      );

      const inbox = await dtp(['--profile', 'acme', 'inbound', '--json'], { env: base });
      expect(inbox.code).toBe(0);
      expect(json(inbox.stdout)).toMatchObject({ page: 1, results: [] });
      // The default profile does not exist: a usage error.
      expect((await dtp(['inbound'], { env: base })).code).toBe(2);
      expect((await dtp(['--profile', 'acme', 'logout'], { env: base })).code).toBe(0);
      expect((await dtp(['--profile', 'acme', 'inbound'], { env: base })).code).toBe(2);
    });

    it('refused credentials: exit 1 and nothing stored', async () => {
      const base = cliEnv();
      const run = await dtp(
        ['login', '--client-id', producer.client_id, '--client-secret-stdin', '--auth-url', stack.urls.auth!, '--platform-url', stack.urls.platform!],
        {
          env: base,
          stdin: 'wrong-secret\n',
        },
      );
      expect(run.stderr).toMatch(/401 invalid_client/);
      expect(run.code).toBe(1);
      expect((await dtp(['logout'], { env: base })).code).toBe(2);
    });
  });

  describe('rough import', () => {
    it('on a terminal draws a progress bar with the rate and the ETA; otherwise it stays quiet', async () => {
      const file = path.join(dir, 'tty.csv');
      writeFileSync(
        file,
        ['box_id,participant_id,participant_timestamp,rough.carats', ...Array.from({ length: 30 }, (_, i) => `TTY,T-${i},2024-05-02T08:00:00Z,1.5`)].join('\n'),
      );
      const run = await dtp(['rough', 'import', file], { env: env(producer), tty: true });
      expect(run.code).toBe(0);
      expect(run.terminal).toMatch(/rough import \[#+\] 100% \| 30\/30 rows \| \d+ rows\/s \| ETA \d+s \| 0 failed/);
      const quiet = await dtp(['rough', 'import', file, '--out', path.join(dir, 'tty-again.csv')], { env: env(producer) });
      expect(quiet.terminal).toBe('');
      expect(quiet.stderr).toMatch(/^registered 30 of 30 rows \(30 already registered by an earlier run\), 0 failed/);
    });

    it('--skip-invalid sends the valid rows, lists the invalid ones in the result file, exit 3', async () => {
      const file = path.join(dir, 'mixed.csv');
      writeFileSync(
        file,
        'box_id,participant_id,participant_timestamp,rough.carats\nMIX,M-1,2024-05-02T08:00:00Z,1.5\nMIX,M-2,2024-05-02T08:00:00Z,heavy\nMIX,M-1,2024-05-02T08:00:00Z,2\n',
      );
      const run = await dtp(['rough', 'import', file, '--skip-invalid', '--concurrency', '1'], { env: env(producer) });
      expect(run.code).toBe(3);
      const rows = parse(readFileSync(path.join(dir, 'mixed.result.csv')), { columns: true }) as { line: string; diamond_id: string; error: string }[];
      expect(rows.map((r) => [r.line, r.diamond_id !== '', r.error.replace(/:.*/, '')])).toEqual([
        ['2', true, ''],
        ['3', false, 'invalid (not sent)'],
        ['4', false, '409 diamond_not_unique'],
      ]);
    });

    it('a role that may not register stops at the first 403: exit 1, the rest not sent', async () => {
      const retailer = await onboard(stack, 'retailer');
      const file = path.join(dir, 'retail.csv');
      writeFileSync(
        file,
        ['box_id,participant_id,participant_timestamp,rough.carats', ...Array.from({ length: 20 }, (_, i) => `R,R-${i},2024-05-02T08:00:00Z,1`)].join('\n'),
      );
      const run = await dtp(['rough', 'import', file, '--concurrency', '2', '--json'], { env: env(retailer) });
      expect(run.code).toBe(1);
      const summary = json<{ registered: number; failed: number; not_sent: number }>(run.stdout);
      expect(summary.registered).toBe(0);
      expect(summary.failed).toBeLessThanOrEqual(2);
      expect(summary.failed + summary.not_sent).toBe(20);
    });
  });

  it('ship --from an import result, inbound, accept every pending diamond; reject another shipment', async () => {
    const ids = await importRough('SHIP', 2);
    const ship = await dtp(
      ['ship', '--to', maker.participant_id, '--name', 'May sight', '--type', 'rough', '--from', path.join(dir, 'SHIP.result.csv'), '--json'],
      { env: env(producer) },
    );
    expect(ship.code).toBe(0);
    const shipment = json<{ id: string; status: string; diamonds: { diamond_id: string }[] }>(ship.stdout);
    expect(shipment.diamonds.map((d) => d.diamond_id).sort()).toEqual([...ids].sort());

    const again = await dtp(['ship', ids[0], '--to', maker.participant_id, '--name', 'again', '--type', 'rough'], { env: env(producer) });
    expect(again.stderr).toMatch(/409 in_transit/);
    expect(again.code).toBe(1);

    const inbox = await dtp(['inbound', '--type', 'rough'], { env: env(maker) });
    expect(inbox.code).toBe(0);
    expect(inbox.stdout).toMatch(new RegExp(`${shipment.id}\\s+May sight\\s+rough\\s+action_required\\s+2\\s+2`));

    const accept = await dtp(['accept', shipment.id, '--json'], { env: env(maker) });
    expect(accept.code).toBe(0);
    expect(json<{ status: string }>(accept.stdout).status).toBe('completed');
    const nothingLeft = await dtp(['accept', shipment.id], { env: env(maker) });
    expect(nothingLeft.stderr).toMatch(/has no diamond waiting for an answer/);
    expect(nothingLeft.code).toBe(1);

    const [other] = await importRough('REJECT', 1);
    const second = json<{ id: string }>(
      (await dtp(['ship', other, '--to', maker.participant_id, '--name', 'unwanted', '--type', 'rough', '--json'], { env: env(producer) })).stdout,
    );
    const reject = await dtp(['reject', second.id, other], { env: env(maker) });
    expect(reject.stdout).toMatch(new RegExp(`rejected 1 diamond of shipment ${second.id}`));
    expect(reject.code).toBe(0);
  });

  it('delete --from: deletes what it may, lists the rest with reasons, exit 3; --out writes every result', async () => {
    const [a, b] = await importRough('DEL', 2);
    const ids = path.join(dir, 'delete.txt');
    writeFileSync(ids, `# to delete\n${a}\n${b}\n\nzzzzzzzzzzzzzzzzzzzzzzzzz\n`);
    const out = path.join(dir, 'delete-results.csv');
    const run = await dtp(['delete', '--from', ids, '--out', out], { env: env(producer) });
    expect(run.stdout).toContain('deleted 2 of 3 diamonds');
    expect(run.stdout).toMatch(/zzzzzzzzzzzzzzzzzzzzzzzzz\s+not_found/);
    expect(run.code).toBe(3);
    const rows = parse(readFileSync(out), { columns: true }) as { diamond_id: string; status: string; reason: string }[];
    expect(rows.map((r) => [r.diamond_id, r.status, r.reason])).toEqual([
      [a, 'success', ''],
      [b, 'success', ''],
      ['zzzzzzzzzzzzzzzzzzzzzzzzz', 'failure', 'not_found'],
    ]);
    const none = await dtp(['delete', 'zzzzzzzzzzzzzzzzzzzzzzzzy', '--json'], { env: env(producer) });
    expect(json(none.stdout)).toMatchObject({ deleted: 0, failed: 1 });
    expect(none.code).toBe(1);
  });

  it('diamonds get, history and files (download) for a non-participant; gis verify and validate --wait for a lab', async () => {
    // The manufacturer holds a rough diamond (shipped and accepted), polishes it and attaches a scan report.
    const [rough] = await importRough('GIS', 1);
    const shipment = json<{ id: string }>(
      (await dtp(['ship', rough, '--to', maker.participant_id, '--name', 'to cut', '--type', 'rough', '--json'], { env: env(producer) })).stdout,
    );
    expect((await dtp(['accept', shipment.id], { env: env(maker) })).code).toBe(0);
    const makerToken = await tokenFor(stack, maker, 'platform');
    const polishedRes = await fetch(`${stack.urls.platform}/diamonds/polished/create`, {
      method: 'POST',
      headers: { authorization: makerToken, 'content-type': 'application/json' },
      body: JSON.stringify({
        parent_diamond_id: rough,
        participant_id: 'GIS-1-P',
        participant_timestamp: '2024-05-20T15:00:00Z',
        polished: { carats: '1.02', shape: 'Round', colour: 'E', clarity: 'VS1' },
      }),
    });
    expect(polishedRes.status).toBe(200);
    const polished = ((await polishedRes.json()) as { diamond_id: string }).diamond_id;
    const reportFile = path.join(__dirname, '..', '..', 'gis', 'test', 'fixtures', 'scan-reports', 'good-round.xml');
    const report = readFileSync(reportFile);
    // Before a scan report is attached, a lab's verify dead-ends on 409 diamond_has_no_scan_report; --help says why.
    const early = await eventually(async () => {
      const run = await dtp(['gis', 'verify', polished, '--carat-weight', '1.02', '--shape-group', 'Round'], { env: env(lab) });
      return /diamond_has_no_scan_report/.test(run.stderr) ? run : undefined;
    }, 'GIS to know the polished diamond');
    expect(early.code).toBe(1);
    expect((await dtp(['gis', 'verify', '--help'])).stdout.replace(/\s+/g, ' ')).toContain('dtp diamonds attach <diamond_id> <report.xml> --kind scan_report');
    writeFileSync(path.join(dir, 'scan-report.xml'), report);
    const attach = await dtp(['diamonds', 'attach', polished, 'scan-report.xml', '--kind', 'scan_report', '--json'], { env: env(maker), cwd: dir });
    expect({ code: attach.code, stderr: attach.stderr }).toEqual({ code: 0, stderr: '' });
    expect(json(attach.stdout)).toMatchObject({ filename: 'scan-report.xml', size: report.length });
    const hash = createHash('sha256').update(report).digest('hex');

    // Search: the record (once its report is in), its ancestry, its files, and the bytes of one.
    const got = await eventually(async () => {
      const run = await dtp(['diamonds', 'get', polished, '--json'], { env: env(insurer) });
      const record = run.code === 0 ? json<{ polished: { scan_reports?: unknown[] } }>(run.stdout) : undefined;
      return record?.polished.scan_reports?.length ? record : undefined;
    }, 'search to show the scan report');
    expect(got).toMatchObject({ diamond_id: polished, lifecycle_state: 'polished' });
    const table = await dtp(['diamonds', 'get', polished], { env: env(insurer) });
    expect(table.stdout).toMatch(/lifecycle_state\s+polished/);
    const history = await dtp(['diamonds', 'history', polished], { env: env(insurer) });
    expect(history.stdout).toMatch(new RegExp(`${rough}\\s+polished\\s+GIS\\s+GIS-1`));
    const files = await dtp(['diamonds', 'files', polished], { env: env(insurer) });
    expect(files.stdout).toMatch(new RegExp(`scan_report\\s+${hash}\\s+scan-report.xml\\s+${report.length}`));
    const target = path.join(dir, 'downloaded.xml');
    const download = await dtp(['diamonds', 'files', polished, '--download', hash, '--output', target], { env: env(insurer) });
    expect(download.code).toBe(0);
    expect(readFileSync(target).equals(report)).toBe(true);
    const missing = await dtp(['diamonds', 'get', 'zzzzzzzzzzzzzzzzzzzzzzzzz'], { env: env(insurer) });
    expect(missing.stderr).toMatch(/404/);
    expect(missing.code).toBe(1);

    // GIS: verify (once GIS has the diamond and its parsed report), then validate and wait for the answer.
    const verify = await eventually(async () => {
      const run = await dtp(['gis', 'verify', polished, '--carat-weight', '1.02', '--shape-group', 'Round', '--json'], { env: env(lab) });
      return run.code === 0 ? json<{ status: string }>(run.stdout) : undefined;
    }, 'GIS to know the polished diamond and its report');
    expect(verify).toEqual({ status: 'success', is_locked: true });
    const mismatch = await dtp(['gis', 'verify', polished, '--carat-weight', '0.9', '--shape-group', 'Oval'], { env: env(lab) });
    expect(mismatch.stdout).toContain(`not verified: ${polished} does not match`);
    expect(mismatch.code).toBe(0);
    const validate = await dtp(
      [
        'gis',
        'validate',
        polished,
        '--shape-group',
        'Round',
        '--estimated-weight-crt',
        '1.0',
        '--girdle-avg-mm',
        '6.45',
        '--table-avg-mm',
        '3.71',
        '--total-depth-mm',
        '3.98',
        '--crown-angle-deg',
        '34.5',
        '--wait',
        '--timeout',
        '30',
        '--json',
      ],
      { env: env(lab) },
    );
    expect(validate.stderr).toBe('');
    expect(validate.code).toBe(0);
    expect(json(validate.stdout)).toMatchObject({
      diamond_id: polished,
      verification_status: 'Verified',
      parameters: { shape: { validation_result: 'matched' } },
    });
    // A manufacturer's credentials are no lab's: 401 from auth (invalid_target) ends the command with 1.
    const wrongRole = await dtp(['gis', 'verify', polished, '--carat-weight', '1.02', '--shape-group', 'Round'], { env: env(maker) });
    expect(wrongRole.stderr).toMatch(/invalid_target/);
    expect(wrongRole.code).toBe(1);
  });
});
