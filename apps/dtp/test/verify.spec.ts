/**
 * `dtp verify <diamond_id>` against a test double of auth, search and platform (node:http on port 0) serving a
 * synthetic custody log (libs/verify/test/synthetic-log.ts: domain's Merkle code, a local Ed25519 key): a good
 * answer, then each tamper case (record, removed entry, reordered entry, forged checkpoint, rolled-back log), the
 * state file across runs, and usage errors before any request.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { CustodyAnswer, CustodyCheckpoint } from '@dtp/domain';
import { clone, newKey, OTHER, POLISHED, SigningKey, SyntheticLog, world } from '../../../libs/verify/test/synthetic-log';
import { cliEnv, connectionCounter, dtp, eventually, spawnDtp, tempDir } from './support';

interface Served {
  answer?: CustodyAnswer;
  record?: unknown;
  keys: { keys: unknown[] };
  log: SyntheticLog;
}

/** Auth (/oauth/token), search (/search/v1/...) and platform (/platform/.well-known/...) on one port. */
async function startDouble() {
  const requests: { method: string; url: string; authorization: string | null }[] = [];
  const served: { current?: Served } = {};
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    requests.push({ method: req.method!, url: `${url.pathname}${url.search}`, authorization: req.headers.authorization ?? null });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const s = served.current!;
    if (req.method === 'POST' && url.pathname === '/oauth/token') return send(200, { access_token: 'search-token', token_type: 'Bearer', expires_in: 3600 });
    if (url.pathname === '/platform/.well-known/custody-keys.json') return send(200, s.keys);
    if (!url.pathname.startsWith('/search/v1/')) return send(404, { message: 'no such route' });
    if (req.headers.authorization !== 'Bearer search-token') return send(401, { message: 'token required' });
    let m = /^\/search\/v1\/diamonds\/([a-z0-9]+)\/custody$/.exec(url.pathname);
    if (m) return s.answer ? send(200, s.answer) : send(404, { message: `diamond ${m[1]} has no custody entries` });
    m = /^\/search\/v1\/diamonds\/([a-z0-9]+)$/.exec(url.pathname);
    if (m) return s.record ? send(200, s.record) : send(404, { message: 'Unknown or deleted diamond' });
    if (url.pathname === '/search/v1/custody/consistency') {
      const from = Number(url.searchParams.get('from'));
      const to = Number(url.searchParams.get('to'));
      return send(200, { from, to, proof: s.log.consistency(from, to) });
    }
    return send(404, { message: 'no such route' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    requests,
    serve: (s: Served) => {
      served.current = s;
      requests.length = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('dtp verify', () => {
  let double: Awaited<ReturnType<typeof startDouble>>;
  let key: SigningKey;
  let forger: SigningKey;
  let log: SyntheticLog;
  let good: CustodyAnswer;
  let stateFile: string;

  const env = (extra: Record<string, string> = {}) =>
    cliEnv({
      DTP_CLIENT_ID: 'watcher',
      DTP_CLIENT_SECRET: 's3cret',
      DTP_AUTH_URL: double.base,
      DTP_SEARCH_URL: `${double.base}/search`,
      DTP_PLATFORM_URL: `${double.base}/platform`,
      ...extra,
    });
  const verify = (args: string[] = [], extra: Record<string, string> = {}) => dtp(['verify', POLISHED, '--state', stateFile, ...args], { env: env(extra) });
  const serveGood = (overrides: Partial<Served> = {}) =>
    double.serve({ answer: good, record: log.record(POLISHED), keys: { keys: [key.publicJwk] }, log, ...overrides });
  const state = () => JSON.parse(readFileSync(stateFile, 'utf8')) as { logs: Record<string, CustodyCheckpoint> };

  beforeAll(async () => {
    double = await startDouble();
    [key, forger] = await Promise.all([newKey('custody-1'), newKey('custody-1')]);
  });
  afterAll(async () => {
    await double?.close();
  });
  beforeEach(async () => {
    log = world();
    good = await log.answer(POLISHED, key);
    stateFile = path.join(tempDir('dtp-verify-'), 'state.json');
  });

  describe('a good answer', () => {
    it('exit 0 with a summary (entries, chain actions, checkpoint size, time and key); the checkpoint is remembered', async () => {
      serveGood();
      const run = await verify();
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`Verified diamond ${POLISHED}: 9 custody entries (4 of this diamond, 5 of its ancestors)`);
      expect(run.stdout).toContain(`checkpoint:  tree size 13 at ${good.checkpoint.timestamp}, signed by key custody-1 (log ${log.logId})`);
      expect(run.stdout).toContain('record:      matches the latest entry');
      expect(run.stdout).toContain('first checkpoint of this log seen here');
      expect(run.stdout).toMatch(/11\s+\S+\s+grading_selected\s+this diamond/);
      expect(run.stdout).toMatch(/0\s+\S+\s+registered\s+an ancestor/);
      expect(state().logs[log.logId]).toEqual(good.checkpoint);
      // Search with the token; the keys without it; nothing else asked.
      expect(double.requests.map((r) => `${r.method} ${r.url} ${r.authorization ?? '-'}`).sort()).toEqual(
        [
          'POST /oauth/token -',
          'GET /platform/.well-known/custody-keys.json -',
          `GET /search/v1/diamonds/${POLISHED}/custody Bearer search-token`,
          `GET /search/v1/diamonds/${POLISHED} Bearer search-token`,
        ].sort(),
      );
    });

    it('--json: the result for scripts', async () => {
      serveGood();
      const run = await verify(['--json']);
      expect(run.code).toBe(0);
      const out = JSON.parse(run.stdout) as Record<string, unknown>;
      expect(out).toMatchObject({
        ok: true,
        diamond_id: POLISHED,
        entries: 9,
        record: 'matched',
        checkpoint: { tree_size: 13, kid: 'custody-1' },
        state: { file: stateFile, previous_tree_size: null },
      });
      expect((out.chain as { action: string }[]).map((s) => s.action).slice(-2)).toEqual(['accepted', 'grading_selected']);
      expect(out).not.toHaveProperty('answer');
    });

    it('the next run, after the log grew: asks for the consistency proof from the size seen before, passes, remembers the new one', async () => {
      serveGood();
      expect((await verify()).code).toBe(0);
      log.change(POLISHED, 'file_attached');
      log.change(OTHER, 'record_updated', { actor: null });
      good = await log.answer(POLISHED, key);
      serveGood();
      const run = await verify();
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('the log extends tree size 13, verified before');
      expect(double.requests.map((r) => r.url)).toContain('/search/v1/custody/consistency?from=13&to=15');
      expect(state().logs[log.logId].tree_size).toBe(15);
    });

    it('a deleted diamond: no record (404) and a deletion as the latest entry', async () => {
      log.change(POLISHED, 'deleted');
      good = await log.answer(POLISHED, key);
      serveGood({ record: undefined });
      const run = await verify();
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('none: the diamond was deleted');
    });

    it('as its own process: exit 0, state under $XDG_CONFIG_HOME/dtp by default', async () => {
      serveGood();
      const xdg = tempDir('dtp-xdg-');
      const e = env({ XDG_CONFIG_HOME: xdg });
      delete e.DTP_CONFIG_DIR;
      const { done } = spawnDtp(['verify', POLISHED], { env: e });
      const run = await done;
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(existsSync(path.join(xdg, 'dtp', 'custody-checkpoints.json'))).toBe(true);
    });
  });

  describe('tampering: exit 1 naming the first broken link', () => {
    it('a tampered record', async () => {
      serveGood({ record: { ...log.record(POLISHED)!, polished: { carats: '1.51', shape: 'Round' } } });
      const run = await verify();
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /^verification FAILED \(record, leaf 11\): the record served was altered: it hashes to [0-9a-f]{64}, but the diamond's latest entry \(leaf 11, grading_selected\) says [0-9a-f]{64}\n$/,
      );
      expect(run.stdout).toBe('');
      expect(existsSync(stateFile)).toBe(false);
    });

    it('a removed entry', async () => {
      const answer = clone(good);
      answer.entries.splice(6, 1); // polished:shipped, leaf 8
      serveGood({ answer });
      const run = await verify();
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('verification FAILED (chain, leaf 10): entry at leaf 10 (accepted of this diamond) links to entry');
      expect(run.stderr).toContain('which the answer does not have: an entry is missing');
    });

    it('a reordered entry', async () => {
      const answer = clone(good);
      [answer.entries[6], answer.entries[7]] = [answer.entries[7], answer.entries[6]];
      serveGood({ answer });
      const run = await verify(['--json']);
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout)).toEqual({
        ok: false,
        diamond_id: POLISHED,
        failure: {
          code: 'order',
          leaf_index: 8,
          message: 'entry at leaf 8 comes after leaf 10: the entries are not in increasing leaf order (reordered or repeated)',
        },
      });
    });

    it('a forged checkpoint: another key under the published kid; an edited tree size', async () => {
      serveGood({ answer: await log.answer(POLISHED, forger) });
      const forged = await verify();
      expect(forged.code).toBe(1);
      expect(forged.stderr).toContain("verification FAILED (signature): the checkpoint's signature does not verify with published key custody-1");
      serveGood({ answer: { ...good, checkpoint: { ...good.checkpoint, tree_size: 12 } } });
      const edited = await verify();
      expect(edited.code).toBe(1);
      expect(edited.stderr).toContain("verification FAILED (checkpoint): the checkpoint's fields are not what key custody-1 signed");
    });

    it('a forger who also serves their own key is caught when the keys are pinned (--keys file)', async () => {
      const pinned = path.join(tempDir(), 'keys.json');
      writeFileSync(pinned, JSON.stringify({ keys: [key.publicJwk] }));
      serveGood({ answer: await log.answer(POLISHED, forger), keys: { keys: [forger.publicJwk] } });
      expect((await verify()).code).toBe(0); // the server's own keys vouch for it...
      const run = await verify(['--keys', pinned, '--state', path.join(tempDir(), 's.json')]);
      expect(run.code).toBe(1); // ...the pinned ones do not
      expect(run.stderr).toContain('(signature)');
      expect(double.requests.filter((r) => r.url.includes('custody-keys'))).toHaveLength(1);
    });

    it('a rolled-back log: smaller than the checkpoint verified before', async () => {
      log.change(POLISHED, 'file_attached');
      serveGood({ answer: await log.answer(POLISHED, key), record: log.record(POLISHED) });
      expect((await verify()).code).toBe(0);
      const before = state();
      serveGood({ answer: good, record: log.records.get(good.entries[8].entry.version_id) });
      const run = await verify();
      expect(run.code).toBe(1);
      expect(run.stderr).toBe('verification FAILED (consistency): the log was rolled back: tree size 13 is smaller than 14, seen before\n');
      expect(state()).toEqual(before);
    });

    it('a rewritten log: the consistency proof from the checkpoint verified before fails', async () => {
      // What this machine saw before: a log whose leaves from 5 on were different.
      const seen = new SyntheticLog();
      for (const e of log.entries.slice(0, 5)) seen.appendEntry(e.entry);
      seen.change(OTHER, 'destroyed');
      seen.change(OTHER, 'deleted');
      writeFileSync(stateFile, JSON.stringify({ logs: { [log.logId]: await seen.checkpoint(key) } }));
      serveGood();
      const run = await verify();
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('verification FAILED (consistency): the tree of size 13 does not contain the tree of size 7 seen before');
      expect(double.requests.map((r) => r.url)).toContain('/search/v1/custody/consistency?from=7&to=13');
    });

    it('a record newer than the log (a change since the last checkpoint): exit 1 saying to try again; --wait asks again until the checkpoint is out', async () => {
      log.change(POLISHED, 'file_attached');
      const newer = log.record(POLISHED);
      serveGood({ record: newer }); // the answer still at tree size 13
      const now = await verify();
      expect(now.code).toBe(1);
      expect(now.stderr).toContain('is not in the log');
      expect(now.stderr).toContain('try again');

      const waiting = verify(['--wait', '30']);
      await eventually(async () => (double.requests.some((r) => r.url.endsWith('/custody')) ? true : undefined), 'the first custody request');
      serveGood({ answer: await log.answer(POLISHED, key), record: newer }); // the next checkpoint is out
      const run = await waiting;
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('tree size 14');
    });

    it('--wait does not wait for a record that was altered (not a newer version)', async () => {
      serveGood({ record: { ...log.record(POLISHED)!, polished: { carats: '1.51' } } });
      const started = Date.now();
      const run = await verify(['--wait', '30']);
      expect(run.code).toBe(1);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(double.requests.filter((r) => r.url.endsWith('/custody'))).toHaveLength(1);
    });

    it('an unknown diamond (search answers 404): exit 1, the request named', async () => {
      serveGood({ answer: undefined });
      const run = await verify();
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `error: could not check diamond ${POLISHED}: GET ${double.base}/search/v1/diamonds/${POLISHED}/custody (the custody answer) answered 404`,
      );
    });

    it('--wait: a diamond search has no entries of yet (404) is asked for again until they arrive', async () => {
      serveGood({ answer: undefined });
      const waiting = verify(['--wait', '30']);
      await eventually(async () => (double.requests.some((r) => r.url.endsWith('/custody')) ? true : undefined), 'the first custody request');
      serveGood();
      const run = await waiting;
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
    });
  });

  describe('usage: exit 2 before any request', () => {
    let counter: Awaited<ReturnType<typeof connectionCounter>>;
    beforeAll(async () => {
      counter = await connectionCounter();
    });
    afterAll(async () => {
      await counter.close();
    });
    const quiet = (extra: Record<string, string> = {}) =>
      cliEnv({ DTP_CLIENT_ID: 'c', DTP_CLIENT_SECRET: 's', DTP_AUTH_URL: counter.url, DTP_SEARCH_URL: counter.url, DTP_PLATFORM_URL: counter.url, ...extra });

    it.each([
      ['no diamond id', [], {}, 'error: missing the diamond id (or --credential FILE)'],
      ['a diamond id out of format', ['NOT-AN-ID'], {}, '"NOT-AN-ID" is not a diamond id'],
      ['no platform URL and no --keys', [POLISHED], { DTP_PLATFORM_URL: '' }, 'has no platform URL (DTP_PLATFORM_URL) to fetch the custody keys from'],
      ['no search URL', [POLISHED], { DTP_SEARCH_URL: '' }, 'search URL (DTP_SEARCH_URL)'],
      ['a --keys file that is not a JWKS', [POLISHED, '--keys', '$DIR/bad-keys.json'], {}, 'is not a JWKS'],
      ['a --wait out of range', [POLISHED, '--wait', '601'], {}, '--wait must be an integer from 0 to 600'],
      ['a state file that is not JSON', [POLISHED, '--state', '$DIR/bad-state.json'], {}, 'is not valid JSON'],
    ])('%s', async (_name, args, extra, message) => {
      const dir = tempDir();
      writeFileSync(path.join(dir, 'bad-keys.json'), '{"keys": 1}');
      writeFileSync(path.join(dir, 'bad-state.json'), '{');
      const e = quiet(extra as Record<string, string>);
      for (const [k, v] of Object.entries(extra as Record<string, string>)) if (v === '') delete e[k];
      const before = counter.connections();
      const run = await dtp(['verify', ...(args as string[]).map((a) => a.replace('$DIR', dir))], { env: e });
      expect(run.stderr).toContain(message);
      expect(run.code).toBe(2);
      expect(counter.connections()).toBe(before);
    });

    it('a state directory is created when missing', async () => {
      serveGood();
      const nested = path.join(tempDir(), 'a', 'b', 'state.json');
      mkdirSync(path.dirname(path.dirname(nested)), { recursive: true });
      const run = await dtp(['verify', POLISHED, '--state', nested], { env: env() });
      expect(run.code).toBe(0);
      expect(existsSync(nested)).toBe(true);
    });
  });
});
