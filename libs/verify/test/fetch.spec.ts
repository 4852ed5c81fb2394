/**
 * fetchAndVerify with a scripted fetch: what it asks for (and with which headers), a deleted diamond's 404 record,
 * the consistency proof it fetches for a checkpoint seen before, and failed requests as results, not exceptions.
 */
import type { CustodyAnswer } from '@dtp/domain';
import { fetchAndVerify, VerifyFetch } from '../src';
import { newKey, OTHER, POLISHED, SigningKey, SyntheticLog, world } from './synthetic-log';

interface Call {
  url: string;
  headers: Record<string, string>;
}

/** A fetch answering from `routes` (path -> [status, body]); records each call. Called as a plain function only. */
function scripted(routes: Record<string, [number, unknown] | (() => never)>): { fetch: VerifyFetch; calls: Call[] } {
  const calls: Call[] = [];
  const fetch = function (this: unknown, url: string, init?: { headers?: Record<string, string> }) {
    // window.fetch throws "Illegal invocation" when called with another `this`.
    if (this !== undefined && this !== globalThis) throw new TypeError('Illegal invocation');
    calls.push({ url, headers: init?.headers ?? {} });
    const route = routes[url];
    if (typeof route === 'function') return route();
    const [status, body] = route ?? [404, { message: 'no such route' }];
    return Promise.resolve({ ok: status >= 200 && status < 300, status, text: () => Promise.resolve(typeof body === 'string' ? body : JSON.stringify(body)) });
  };
  return { fetch, calls };
}

describe('fetchAndVerify', () => {
  let key: SigningKey;
  let log: SyntheticLog;
  let answer: CustodyAnswer;
  const S = 'https://search.test';
  const KEYS = 'https://platform.test/.well-known/custody-keys.json';

  beforeAll(async () => {
    key = await newKey('k1');
  });
  beforeEach(async () => {
    log = world();
    answer = await log.answer(POLISHED, key);
  });

  it('fetches the answer, the keys and the record, sends the headers to search only, and verifies', async () => {
    const { fetch, calls } = scripted({
      [`${S}/custody`]: [200, answer],
      [KEYS]: [200, { keys: [key.publicJwk] }],
      [`${S}/record`]: [200, log.record(POLISHED)],
    });
    const r = await fetchAndVerify({ fetch, custodyUrl: `${S}/custody`, keysUrl: KEYS, recordUrl: `${S}/record`, headers: { authorization: 'Bearer t0ken' } });
    expect(r).toMatchObject({ ok: true, diamond_id: POLISHED, record: 'matched', entries: 9 });
    expect(r.answer).toEqual(answer);
    expect(calls.map((c) => [c.url, c.headers.authorization ?? null])).toEqual([
      [`${S}/custody`, 'Bearer t0ken'],
      [KEYS, null],
      [`${S}/record`, 'Bearer t0ken'],
    ]);
  });

  it('without a record URL or diamond id: the diamond of the last entry, record not checked; keys may be given', async () => {
    const { fetch, calls } = scripted({ [`${S}/custody`]: [200, answer] });
    const r = await fetchAndVerify({ fetch, custodyUrl: `${S}/custody`, keys: { keys: [key.publicJwk] } });
    expect(r).toMatchObject({ ok: true, diamond_id: POLISHED, record: 'not_checked' });
    expect(calls).toHaveLength(1);
  });

  it('a 404 record with a deletion as the latest entry: verified as deleted', async () => {
    log.change(OTHER, 'deleted');
    const { fetch } = scripted({ [`${S}/custody`]: [200, await log.answer(OTHER, key)], [KEYS]: [200, { keys: [key.publicJwk] }] });
    const r = await fetchAndVerify({ fetch, custodyUrl: `${S}/custody`, keysUrl: KEYS, recordUrl: `${S}/record`, diamondId: OTHER });
    expect(r).toMatchObject({ ok: true, record: 'deleted' });
  });

  it('a tampered record served: record failure', async () => {
    const { fetch } = scripted({
      [`${S}/custody`]: [200, answer],
      [KEYS]: [200, { keys: [key.publicJwk] }],
      [`${S}/record`]: [200, { ...log.record(POLISHED), polished: { carats: '2.01' } }],
    });
    const r = await fetchAndVerify({ fetch, custodyUrl: `${S}/custody`, keysUrl: KEYS, recordUrl: `${S}/record` });
    expect(r).toMatchObject({ ok: false, failure: { code: 'record' } });
  });

  it('a checkpoint seen before: fetches the consistency proof between the two sizes and checks it', async () => {
    const seen = await log.checkpoint(key, 6);
    const consistency = `${S}/v1/custody/consistency?from=6&to=13`;
    const { fetch, calls } = scripted({
      [`${S}/custody`]: [200, answer],
      [KEYS]: [200, { keys: [key.publicJwk] }],
      [consistency]: [200, { from: 6, to: 13, proof: log.consistency(6) }],
    });
    const r = await fetchAndVerify({
      fetch,
      custodyUrl: `${S}/custody`,
      keysUrl: KEYS,
      known: (logId) => (logId === log.logId ? seen : null),
      consistencyUrl: `${S}/v1/custody/consistency`,
      headers: { authorization: 'Bearer x' },
    });
    expect(r).toMatchObject({ ok: true, consistent_with: 6 });
    expect(calls.find((c) => c.url === consistency)?.headers.authorization).toBe('Bearer x');

    // The proof of another tree: consistency failure.
    const forked = new SyntheticLog();
    for (let i = 0; i < 13; i += 1) forked.change(OTHER, i === 0 ? 'registered' : 'record_updated');
    const bad = scripted({
      [`${S}/custody`]: [200, answer],
      [KEYS]: [200, { keys: [key.publicJwk] }],
      [consistency]: [200, { from: 6, to: 13, proof: forked.consistency(6) }],
    });
    expect(
      await fetchAndVerify({ fetch: bad.fetch, custodyUrl: `${S}/custody`, keysUrl: KEYS, known: seen, consistencyUrl: `${S}/v1/custody/consistency` }),
    ).toMatchObject({ ok: false, failure: { code: 'consistency' } });
  });

  it('a bigger checkpoint seen before: a rollback, without asking for a proof', async () => {
    log.change(POLISHED, 'shipped');
    const seen = await log.checkpoint(key);
    const { fetch, calls } = scripted({ [`${S}/custody`]: [200, answer], [KEYS]: [200, { keys: [key.publicJwk] }] });
    const r = await fetchAndVerify({ fetch, custodyUrl: `${S}/custody`, keysUrl: KEYS, known: seen, consistencyUrl: (from, to) => `${S}/c/${from}/${to}` });
    expect(r).toMatchObject({ ok: false, failure: { code: 'consistency', message: 'the log was rolled back: tree size 13 is smaller than 14, seen before' } });
    expect(calls).toHaveLength(2);
  });

  it('failed requests and bodies that are not JSON: fetch and format failures, not exceptions', async () => {
    const down = scripted({ [`${S}/custody`]: [503, 'busy'], [KEYS]: [200, { keys: [key.publicJwk] }] });
    expect(await fetchAndVerify({ fetch: down.fetch, custodyUrl: `${S}/custody`, keysUrl: KEYS })).toEqual({
      ok: false,
      failure: { code: 'fetch', status: 503, message: `GET ${S}/custody (the custody answer) answered 503: busy` },
    });
    const notYet = scripted({ [KEYS]: [200, { keys: [key.publicJwk] }] });
    expect(await fetchAndVerify({ fetch: notYet.fetch, custodyUrl: `${S}/custody`, keysUrl: KEYS })).toMatchObject({
      ok: false,
      failure: { code: 'fetch', status: 404, pending: true },
    });
    const unreachable = scripted({
      [`${S}/custody`]: [200, answer],
      [KEYS]: () => {
        throw new TypeError('fetch failed');
      },
    });
    expect(await fetchAndVerify({ fetch: unreachable.fetch, custodyUrl: `${S}/custody`, keysUrl: KEYS })).toMatchObject({
      ok: false,
      failure: { code: 'fetch', message: `could not fetch the custody keys from ${KEYS}: fetch failed` },
    });
    const html = scripted({ [`${S}/custody`]: [200, '<html>'], [KEYS]: [200, { keys: [key.publicJwk] }] });
    expect(await fetchAndVerify({ fetch: html.fetch, custodyUrl: `${S}/custody`, keysUrl: KEYS })).toMatchObject({
      ok: false,
      failure: { code: 'format', message: `the custody answer from ${S}/custody is not JSON` },
    });
    const record500 = scripted({ [`${S}/custody`]: [200, answer], [KEYS]: [200, { keys: [key.publicJwk] }], [`${S}/record`]: [500, 'oops'] });
    expect(await fetchAndVerify({ fetch: record500.fetch, custodyUrl: `${S}/custody`, keysUrl: KEYS, recordUrl: `${S}/record` })).toMatchObject({
      ok: false,
      failure: { code: 'fetch' },
    });
  });
});
