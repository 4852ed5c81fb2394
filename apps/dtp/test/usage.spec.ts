/**
 * `dtp` without a stack: --help of every command, and usage or input errors that exit 2 before any request
 * (every service URL points to a listener that counts connections, and must count none).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { buildProgram } from '../src/cli';
import { cliEnv, connectionCounter, dtp, spawnDtp, tempDir } from './support';

/** Every command path of the program: ['rough', 'import'], ['gis', 'verify'], ... */
function commandPaths(cmd: Command, prefix: string[] = []): string[][] {
  return cmd.commands.flatMap((c) => [[...prefix, c.name()], ...commandPaths(c, [...prefix, c.name()])]);
}

describe('dtp --help', () => {
  const paths = commandPaths(buildProgram({ out: () => undefined, err: () => undefined } as never));

  it('covers every command (the list below is the documented set)', () => {
    expect(paths.map((p) => p.join(' ')).sort()).toEqual(
      [
        'accept',
        'delete',
        'diamonds',
        'diamonds attach',
        'diamonds files',
        'diamonds get',
        'diamonds history',
        'events',
        'events listen',
        'gis',
        'gis validate',
        'gis verify',
        'inbound',
        'login',
        'logout',
        'lookup',
        'reject',
        'rough',
        'rough import',
        'ship',
        'verify',
      ].sort(),
    );
  });

  it.each(['', ...paths.map((p) => p.join(' '))])('dtp %s --help: usage and a description, exit 0', async (command) => {
    const p = command === '' ? [] : command.split(' ');
    const run = await dtp([...p, '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Usage: dtp${p.length ? ` ${p.join(' ')}` : ''}`);
    expect(run.stdout.split('\n')[2].trim().length).toBeGreaterThan(10); // the description line
    expect(run.stderr).toBe('');
  });

  it('the top-level help documents the exit codes', async () => {
    const run = await dtp(['--help']);
    for (const line of ['0  done', '1  API or runtime failure', '2  usage or input error', '3  partial failure of a bulk command'])
      expect(run.stdout).toContain(line);
  });
});

describe('usage errors exit 2 without any request', () => {
  let counter: Awaited<ReturnType<typeof connectionCounter>>;
  let env: NodeJS.ProcessEnv;
  let dir: string;

  beforeAll(async () => {
    counter = await connectionCounter();
    env = cliEnv({
      DTP_CLIENT_ID: 'dtp_x',
      DTP_CLIENT_SECRET: 'secret',
      DTP_AUTH_URL: counter.url,
      DTP_PLATFORM_URL: counter.url,
      DTP_SEARCH_URL: counter.url,
      DTP_GIS_URL: counter.url,
    });
    dir = tempDir();
    writeFileSync(
      path.join(dir, 'bad.csv'),
      [
        'box_id,participant_id,participant_timestamp,rough.carats,rough.colour,sight_no,supplementary_tags',
        'B1,P-1,2024-05-02T08:00:00Z,1.5,G,5,',
        'B1,P-2,yesterday,1.5,G,5,',
        'B1,P-3,2024-05-02T08:00:00Z,-1,purple,five,',
        'B1,P-4,2024-05-02T08:00:00Z,1.5,,,{not json',
        ',P-5,2024-05-02T08:00:00Z,,,,',
      ].join('\n'),
    );
    writeFileSync(path.join(dir, 'unknown.csv'), 'box_id,participant_id,participant_timestamp,rough.carats,rough.color\nB,P,2024-05-02T08:00:00Z,1,G\n');
    writeFileSync(path.join(dir, 'empty.csv'), '');
    writeFileSync(path.join(dir, 'header-only.csv'), 'box_id,participant_id,participant_timestamp,rough.carats\n');
    writeFileSync(path.join(dir, 'ragged.csv'), 'box_id,participant_id\nB,P,extra\n');
    writeFileSync(path.join(dir, 'no-ids.txt'), '# nothing\n\n');
  });
  afterAll(async () => {
    expect(counter.connections()).toBe(0);
    await counter.close();
  });

  const cases: [string, string[], RegExp][] = [
    ['an unknown command', ['bogus'], /unknown command 'bogus'/],
    ['an unknown option', ['inbound', '--colour'], /unknown option '--colour'/],
    ['a missing argument', ['diamonds', 'get'], /missing required argument 'diamond_id'/],
    ['a command group without its command', ['rough'], /Usage: dtp rough/],
    ['--concurrency out of range', ['rough', 'import', 'x.csv', '--concurrency', '0'], /--concurrency must be an integer from 1 to 64/],
    ['--page-size out of range', ['inbound', '--page-size', '101'], /--page-size must be an integer from 1 to 100/],
    ['a shipment type that does not exist', ['ship', 'd1', '--to', 'u', '--name', 'n', '--type', 'cut'], /Allowed choices are rough, polished/],
    ['ship without --to', ['ship', 'd1', '--name', 'n', '--type', 'rough'], /required option '--to <participant_id>' not specified/],
    ['ship without diamonds', ['ship', '--to', 'u', '--name', 'n', '--type', 'rough'], /name the diamonds to ship/],
    ['delete without diamonds', ['delete'], /name the diamonds to delete/],
    ['delete --from a missing file', ['delete', '--from', 'nope.txt'], /cannot read nope.txt: ENOENT/],
    ['delete --from a file without ids', ['delete', '--from', 'no-ids.txt'], /no-ids.txt names no diamond ids/],
    [
      'gis verify with a carat weight that is not a number',
      ['gis', 'verify', 'd1', '--carat-weight', 'heavy', '--shape-group', 'Round'],
      /argument 'heavy' is invalid. not a number/,
    ],
    [
      'gis verify with an unknown shape (checked with the service DTO)',
      ['gis', 'verify', 'd1', '--carat-weight', '1', '--shape-group', 'Blob'],
      /--shape-group: shape_group must be a shape or a shape group name/,
    ],
    [
      'gis validate with a negative measure',
      [
        'gis',
        'validate',
        'd1',
        '--shape-group',
        'Round',
        '--estimated-weight-crt',
        '1',
        '--girdle-avg-mm',
        '-1',
        '--table-avg-mm',
        '1',
        '--total-depth-mm',
        '1',
      ],
      /--girdle-avg-mm: girdle_avg_mm must not be less than 0/,
    ],
    ['lookup without a criterion', ['lookup'], /give exactly one of --report-number, --inscription, --certificate-number/],
    ['lookup with two criteria', ['lookup', '--report-number', 'R1', '--inscription', 'I1'], /exactly one .*\(got --report-number, --inscription\)/],
    ['lookup --lab without --report-number', ['lookup', '--inscription', 'I1', '--lab', 'GIA'], /--lab goes with --report-number/],
    ['lookup with an empty value', ['lookup', '--certificate-number', ' '], /--certificate-number must not be empty/],
    ['events listen without --forward-to', ['events', 'listen'], /required option '--forward-to <url>' not specified/],
    ['events listen to a URL that is not http(s)', ['events', 'listen', '--forward-to', 'ftp://x'], /--forward-to must be an http\(s\) URL/],
    ['events listen with an unknown type', ['events', 'listen', '--forward-to', 'http://x', '--types', 'dtp.nope'], /--types: unknown event types dtp.nope/],
    ['events listen with --after and --from-start', ['events', 'listen', '--forward-to', 'http://x', '--after', 'c_1', '--from-start'], /not both/],
    ['diamonds files --download with a bad hash', ['diamonds', 'files', 'd1', '--download', 'abc'], /64 lowercase hex/],
    ['rough import of a missing file', ['rough', 'import', 'missing.csv'], /cannot read missing.csv: ENOENT/],
    ['rough import with an unknown column', ['rough', 'import', 'unknown.csv'], /unknown column "rough.color"; the columns are: .*rough.colour/],
    ['rough import of an empty file', ['rough', 'import', 'empty.csv'], /the file is empty/],
    ['rough import of a header without rows', ['rough', 'import', 'header-only.csv'], /has a header but no rows/],
    ['rough import of a malformed CSV', ['rough', 'import', 'ragged.csv'], /not valid CSV: Invalid Record Length/],
    ['login with a URL that is not http(s)', ['login', '--client-id', 'c', '--auth-url', 'ftp://x', '--no-verify'], /--auth-url must be an http\(s\) URL/],
  ];

  it.each(cases)('%s', async (_what, args, message) => {
    const run = await dtp(args, { env, cwd: dir });
    expect(run.stderr).toMatch(message);
    expect(run.code).toBe(2);
  });

  it('rough import: every bad row and field is reported with its line; nothing is sent', async () => {
    const run = await dtp(['rough', 'import', 'bad.csv'], { env, cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('bad.csv: 4 of 5 rows are invalid:');
    expect(run.stderr).toContain('line 3: participant_timestamp:');
    expect(run.stderr).toMatch(/line 4: rough\.carats: /);
    expect(run.stderr).toMatch(/line 4: rough\.colour: /);
    expect(run.stderr).toMatch(/line 4: sight_no: /);
    expect(run.stderr).toContain('line 5: supplementary_tags: supplementary_tags must be a JSON object');
    expect(run.stderr).toMatch(/line 6: box_id: /);
    expect(run.stderr).toMatch(/line 6: rough: /);
    expect(run.stderr).not.toMatch(/line 2:/);
    expect(run.stderr).toContain('nothing sent: fix the rows above, or pass --skip-invalid to register the 1 valid rows');
  });

  it('rough import --json lists the problems for scripts', async () => {
    const run = await dtp(['rough', 'import', 'bad.csv', '--json'], { env, cwd: dir });
    expect(run.code).toBe(2);
    const report = JSON.parse(run.stdout) as { rows: number; invalid: number; sent: number; problems: { line: number; field: string; type: string }[] };
    expect(report).toMatchObject({ rows: 5, invalid: 4, sent: 0 });
    expect(report.problems).toContainEqual(expect.objectContaining({ line: 4, field: 'rough.colour', type: 'enum' }));
  });

  it('rough import --dry-run validates without credentials or requests', async () => {
    writeFileSync(path.join(dir, 'good.csv'), 'box_id,participant_id,participant_timestamp,rough.carats\nB,P-1,2024-05-02T08:00:00Z,1.25\n');
    const run = await dtp(['rough', 'import', 'good.csv', '--dry-run'], { env: cliEnv(), cwd: dir });
    expect(run.stderr).toContain('1 of 1 rows are valid; nothing sent (--dry-run)');
    expect(run.code).toBe(0);
  });

  it('no credentials configured: names what is missing and exits 2', async () => {
    const run = await dtp(['inbound'], { env: cliEnv({ DTP_PLATFORM_URL: counter.url }) });
    expect(run.stderr).toMatch(/profile "default" has no client id \(DTP_CLIENT_ID\), client secret \(DTP_CLIENT_SECRET\), auth URL \(DTP_AUTH_URL\)/);
    expect(run.code).toBe(2);
    const other = await dtp(['--profile', 'lab', 'gis', 'verify', 'd1', '--carat-weight', '1', '--shape-group', 'Round'], { env: cliEnv() });
    expect(other.stderr).toMatch(/profile "lab" has no .*gis URL \(DTP_GIS_URL\)/);
    expect(other.code).toBe(2);
  });

  it('login without a secret, not on a terminal: exit 2 and nothing stored', async () => {
    const loginEnv = cliEnv();
    const run = await dtp(['login', '--client-id', 'c', '--auth-url', counter.url, '--platform-url', counter.url], { env: loginEnv });
    expect(run.stderr).toMatch(/no client secret/);
    expect(run.code).toBe(2);
    const after = await dtp(['logout'], { env: loginEnv });
    expect(after.stderr).toMatch(/no profile "default"/);
  });

  it('as a process: the real exit codes (0 help, 2 usage)', async () => {
    const [help, usage, input] = await Promise.all([
      spawnDtp(['--help'], { env }).done,
      spawnDtp(['ship', '--type', 'cut'], { env }).done,
      spawnDtp(['rough', 'import', path.join(dir, 'bad.csv')], { env }).done,
    ]);
    expect([help.code, usage.code, input.code]).toEqual([0, 2, 2]);
    expect(help.stdout).toContain('Usage: dtp');
    expect(input.stderr).toContain('4 of 5 rows are invalid');
  });
});
