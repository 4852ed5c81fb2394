/**
 * The published packages as an integrator gets them: `tools/build-packages.js --pack` builds @dtp/sdk, @dtp/verify
 * and @dtp/cli and packs each (`npm pack`); the tarballs are installed into a scratch project in the system's temp
 * directory, outside the workspace (no path alias, no workspace node_modules above it: their dependencies come from
 * the npm registry, or npm's cache with --prefer-offline). There: a TypeScript program on the SDK's and the
 * verifier's types compiles with `tsc --strict` as ESM and as CommonJS, and a misuse of the types fails to; `node`
 * requires and imports each; `npx dtp --help`; the packaged `dtp` registers a diamond and verifies its custody log
 * against a running stack (auth, platform, search); the packaged browser script verifies the same log in Chromium.
 */
import { execFile } from 'node:child_process';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { startTestStack } from '@dtp/test-stack';
import { onboard, ParticipantCredentials, sqlRows, TEST_AUDIENCES, TestStack, tokenFor } from '@dtp/testing';
import { launchChromium } from '../../tools/testing/chromium';

const run = promisify(execFile);
const root = path.join(__dirname, '..', '..');
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');

interface Packed {
  name: string;
  version: string;
  tarball: string;
  files: string[];
}

/** The environment of the scratch project's commands: nothing of the workspace's npm run or module paths. */
function scratchEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(npm_|NODE_PATH$|NODE_OPTIONS$|INIT_CWD$|DTP_)/i.test(k)) env[k] = v;
  }
  return { ...env, ...extra };
}

describe('the packages, installed from their tarballs outside the workspace', () => {
  let work: string;
  let scratch: string;
  let packed: Packed[];
  const inScratch = (cmd: string, args: string[], env: Record<string, string> = {}) =>
    run(cmd, args, { cwd: scratch, env: scratchEnv(env), maxBuffer: 64 * 1024 * 1024 });

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'dtp-packages-'));
    const built = await run(
      process.execPath,
      [path.join(root, 'tools', 'build-packages.js'), '--out', path.join(work, 'build'), '--pack', '--pack-destination', path.join(work, 'tarballs'), '--json'],
      {
        cwd: root,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    packed = (JSON.parse(built.stdout) as { tarballs: Packed[] }).tarballs;
    scratch = path.join(work, 'scratch');
    await run('mkdir', ['-p', scratch]);
    writeFileSync(path.join(scratch, 'package.json'), `${JSON.stringify({ name: 'integrator', version: '1.0.0', private: true }, null, 2)}\n`);
    await inScratch('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', ...packed.map((p) => p.tarball)]);
  }, 600_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('each tarball holds its manifest, changelog and built dist/ only: no TypeScript sources, no tests', () => {
    expect(packed.map((p) => [p.name, p.version])).toEqual([
      ['@dtp/sdk', '1.35.0'],
      ['@dtp/verify', '1.35.0'],
      ['@dtp/cli', '1.35.0'],
    ]);
    for (const p of packed) {
      expect(p.files).toEqual(expect.arrayContaining(['package.json', 'CHANGELOG.md']));
      expect(p.files.filter((f) => !['package.json', 'CHANGELOG.md'].includes(f) && !f.startsWith('dist/'))).toEqual([]);
      expect(p.files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.endsWith('.d.mts') && !f.endsWith('.d.cts'))).toEqual([]);
    }
    const installed = JSON.parse(readFileSync(path.join(scratch, 'node_modules', '@dtp', 'cli', 'package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(installed.bin).toEqual({ dtp: './dist/dtp.cjs' });
  });

  // tsc checks the bundled declarations too (skipLibCheck off): about 15 s of CPU on the 2-core machine.
  it('a program on the SDK and verifier types compiles with tsc --strict (ESM and CommonJS); a misuse does not', async () => {
    const program = `
import { createDtpClient, DtpApiError, newIdempotencyKey, unwrap, type PlatformSchema } from '@dtp/sdk';
import { verifyCustody, type CustodyKeys, type VerifyResult } from '@dtp/verify';

const dtp = createDtpClient({ authUrl: 'https://auth.example.com', platformUrl: 'https://api.example.com', clientId: 'id', clientSecret: 'secret' });
const body: PlatformSchema<'CreateRoughDiamond'> = { box_id: 'B', participant_id: 'P-1', participant_timestamp: '2024-05-02T08:00:00Z', rough: { carats: '1.10' } };

export async function register(): Promise<string> {
  try {
    const created = await unwrap(dtp.platform.POST('/diamonds/rough/create', { body, headers: { 'Idempotency-Key': newIdempotencyKey() } }));
    return created.diamond_id;
  } catch (err) {
    if (err instanceof DtpApiError) return \`\${err.status} \${err.reason ?? ''}\`;
    throw err;
  }
}

export async function check(answer: Parameters<typeof verifyCustody>[0], keys: CustodyKeys): Promise<boolean> {
  const result: VerifyResult = await verifyCustody(answer, { diamondId: 'x', keys });
  return result.ok ? result.entries > 0 : result.failure.code.length > 0;
}
`;
    writeFileSync(path.join(scratch, 'program.mts'), program);
    writeFileSync(path.join(scratch, 'program.cts'), program);
    const tsconfig = {
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        lib: ['es2023', 'dom'],
        types: [],
        skipLibCheck: false,
      },
    };
    writeFileSync(path.join(scratch, 'tsconfig.json'), JSON.stringify({ ...tsconfig, files: ['program.mts', 'program.cts'] }));
    await expect(inScratch(process.execPath, [tsc, '-p', 'tsconfig.json'])).resolves.toMatchObject({ stdout: '' });

    // The types are real: a path the API does not have and a member the schema does not have are errors.
    writeFileSync(
      path.join(scratch, 'misuse.mts'),
      `${program}\nawait dtp.platform.POST('/diamonds/rough/make', { body });\nexport const n: number = body.box_id;\n`,
    );
    writeFileSync(
      path.join(scratch, 'tsconfig.misuse.json'),
      JSON.stringify({ compilerOptions: { ...tsconfig.compilerOptions, skipLibCheck: true }, files: ['misuse.mts'] }),
    );
    const misuse = await inScratch(process.execPath, [tsc, '-p', 'tsconfig.misuse.json']).then(
      () => '',
      (err: { stdout: string }) => err.stdout,
    );
    expect(misuse).toMatch(/misuse\.mts\(\d+,\d+\): error TS2345: .*"\/diamonds\/rough\/make"/);
    expect(misuse).toMatch(/misuse\.mts\(\d+,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/);
  }, 300_000);

  it('node requires and imports each (CommonJS and ESM entry points)', async () => {
    const cjs = await inScratch(process.execPath, [
      '-e',
      `const sdk = require('@dtp/sdk'); const verify = require('@dtp/verify');
       console.log(JSON.stringify({ sdk: typeof sdk.createDtpClient, err: typeof sdk.DtpApiError, verify: typeof verify.verifyCustody, fetch: typeof verify.fetchAndVerify,
         file: require.resolve('@dtp/sdk'), cli: require('@dtp/cli/package.json').name }));`,
    ]);
    expect(JSON.parse(cjs.stdout)).toEqual({
      sdk: 'function',
      err: 'function',
      verify: 'function',
      fetch: 'function',
      file: path.join(scratch, 'node_modules', '@dtp', 'sdk', 'dist', 'index.cjs'),
      cli: '@dtp/cli',
    });
    const esm = await inScratch(process.execPath, [
      '--input-type=module',
      '-e',
      `import { createDtpClient, isDtpApiError } from '@dtp/sdk'; import { verifyCustody, sha256Hex } from '@dtp/verify';
       console.log(JSON.stringify({ sdk: typeof createDtpClient, is: typeof isDtpApiError, verify: typeof verifyCustody, hash: await sha256Hex('abc'), file: import.meta.resolve('@dtp/verify') }));`,
    ]);
    expect(JSON.parse(esm.stdout)).toEqual({
      sdk: 'function',
      is: 'function',
      verify: 'function',
      hash: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      file: `file://${path.join(scratch, 'node_modules', '@dtp', 'verify', 'dist', 'index.mjs')}`,
    });
  });

  it('npx dtp --help and --version', async () => {
    const help = await inScratch('npx', ['--no-install', 'dtp', '--help']);
    expect(help.stdout).toContain('Usage: dtp [options] [command]');
    expect(help.stdout).toContain('rough');
    expect((await inScratch('npx', ['--no-install', 'dtp', '--version'])).stdout.trim()).toBe('1.35.0');
  });

  describe('against a running stack', () => {
    let stack: TestStack;
    let producer: ParticipantCredentials;
    let insurer: ParticipantCredentials;
    let browser: Browser | undefined;
    let page: Server | undefined;
    let diamond: string;
    const dtpEnv = (who: ParticipantCredentials) => ({
      DTP_CONFIG_DIR: mkdtempSync(path.join(work, 'config-')),
      DTP_CLIENT_ID: who.client_id,
      DTP_CLIENT_SECRET: who.client_secret,
      DTP_AUTH_URL: stack.urls.auth!,
      DTP_PLATFORM_URL: stack.urls.platform!,
      DTP_PLATFORM_AUDIENCE: TEST_AUDIENCES.platform,
      DTP_SEARCH_URL: stack.urls.search!,
      DTP_SEARCH_AUDIENCE: TEST_AUDIENCES.search,
    });

    beforeAll(async () => {
      stack = await startTestStack({ services: ['auth', 'platform', 'search'], env: { platform: { CUSTODY_CHECKPOINT_INTERVAL_MS: '200' } } });
      [producer, insurer] = await Promise.all([onboard(stack, 'producer'), onboard(stack, 'non_participant')]);
      // The packaged dtp registers the diamond (rough import) that the next tests verify.
      writeFileSync(
        path.join(scratch, 'rough.csv'),
        'box_id,participant_id,participant_timestamp,rough.carats,rough.colour\nPKG,PKG-1,2024-05-02T08:00:00Z,2.40,G\n',
      );
      const imported = await inScratch('npx', ['--no-install', 'dtp', 'rough', 'import', 'rough.csv', '--json'], dtpEnv(producer));
      diamond = parseResult(path.join(scratch, 'rough.result.csv'));
      expect(JSON.parse(imported.stdout)).toMatchObject({ registered: 1, failed: 0 });
      const [row] = await sqlRows<{ diamond_id: string }>(stack.databases.platform!, 'SELECT diamond_id FROM diamonds WHERE uploader_id = $1', [
        producer.participant_id,
      ]);
      expect(row.diamond_id).toBe(diamond);
    }, 300_000);

    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => (page ? page.close(resolve) : resolve(undefined)));
      await stack?.close();
    });

    it("dtp verify checks the diamond's custody log with the published keys", async () => {
      const verified = await inScratch('npx', ['--no-install', 'dtp', 'verify', diamond, '--wait', '60', '--json'], dtpEnv(insurer));
      const out = JSON.parse(verified.stdout) as { ok: boolean; entries: number; chain: { action: string }[] };
      expect(out).toMatchObject({ ok: true, entries: 1 });
      expect(out.chain.map((s) => s.action)).toEqual(['registered']);
      const text = await inScratch('npx', ['--no-install', 'dtp', 'verify', diamond], dtpEnv(insurer));
      expect(text.stdout).toContain(`Verified diamond ${diamond}: 1 custody entry (`);
    }, 120_000);

    it('@dtp/verify/browser in Chromium verifies the same log; a tampered entry fails there', async () => {
      const token = await tokenFor(stack, insurer, 'search');
      const answer = (await (await fetch(`${stack.urls.search}/v1/diamonds/${diamond}/custody`, { headers: { authorization: token } })).json()) as {
        entries: { entry_hash: string }[];
      };
      const keys = (await (await fetch(`${stack.urls.platform}/.well-known/custody-keys.json`)).json()) as unknown;
      const script = readFileSync(path.join(scratch, 'node_modules', '@dtp', 'verify', 'dist', 'dtp-verify.global.js'), 'utf8');
      // The script the export map names, resolved by Node from the scratch project.
      const resolved = await inScratch(process.execPath, ['-p', "require.resolve('@dtp/verify/browser')"]);
      expect(resolved.stdout.trim()).toBe(path.join(scratch, 'node_modules', '@dtp', 'verify', 'dist', 'dtp-verify.global.js'));

      // A page on a loopback origin (a secure context: WebCrypto) that loads the script as an integrator's page would.
      page = createServer((req, res) => {
        if (req.url === '/dtp-verify.global.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
        else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>verify</title><script src="/dtp-verify.global.js"></script>');
      });
      await new Promise<void>((resolve) => page!.listen(0, '127.0.0.1', resolve));
      browser = await launchChromium();
      const tab = await browser.newPage();
      await tab.goto(`http://127.0.0.1:${(page.address() as AddressInfo).port}/`);
      const verifyIn = (a: unknown) =>
        tab.evaluate(
          async ([a, k, id]) => {
            const w = globalThis as unknown as {
              DtpVerify: { verifyCustody: (a: unknown, o: unknown) => Promise<{ ok: boolean; entries?: number; failure?: { code: string } }> };
            };
            return w.DtpVerify.verifyCustody(a, { diamondId: id, keys: k });
          },
          [a, keys, diamond] as const,
        );
      expect(await verifyIn(answer)).toMatchObject({ ok: true, entries: 1 });
      const tampered = structuredClone(answer);
      tampered.entries[0].entry_hash = '0'.repeat(64);
      expect(await verifyIn(tampered)).toMatchObject({ ok: false });
    }, 120_000);
  });
});

/** The diamond id of the one row of an import result file. */
function parseResult(file: string): string {
  const [header, row] = readFileSync(file, 'utf8').trim().split('\n');
  return row.split(',')[header.split(',').indexOf('diamond_id')];
}
