/**
 * The browser bundle: esbuild builds browser.ts into one script with nothing of Node in it; run in a bare `vm`
 * context that has only what a browser page has (WebCrypto, TextEncoder, atob...), it defines DtpVerify, whose
 * verifyCustody accepts a good answer and names a tampered record, and whose fetchAndVerify works with the page's fetch.
 */
import vm from 'node:vm';
import { buildBrowserBundle } from '@dtp/verify/bundle';
import type { VerifyFetch, VerifyResult } from '../src';
import { newKey, POLISHED, world } from './synthetic-log';

interface DtpVerifyGlobal {
  verifyCustody: (answer: unknown, opts: unknown) => Promise<VerifyResult>;
  fetchAndVerify: (opts: { fetch: VerifyFetch; custodyUrl: string; keysUrl: string; recordUrl: string }) => Promise<VerifyResult>;
}

describe('buildBrowserBundle', () => {
  let code: string;

  beforeAll(async () => {
    code = await buildBrowserBundle();
  });

  it('is one self-contained minified script, without require or node: modules, built once', async () => {
    expect(code.length).toBeGreaterThan(5_000);
    expect(code.length).toBeLessThan(150_000);
    expect(code).not.toContain('require(');
    expect(code).not.toMatch(/["']node:/);
    expect(code.split('\n').length).toBeLessThan(5);
    expect(await buildBrowserBundle()).toBe(code);
  });

  it('in a context with only browser globals, DtpVerify checks a good answer and a tampered record', async () => {
    const context = vm.createContext({
      crypto: globalThis.crypto,
      CryptoKey: (globalThis as unknown as Record<string, unknown>).CryptoKey,
      TextEncoder,
      TextDecoder,
      atob,
      btoa,
    });
    vm.runInContext(code, context);
    const api = (context as { DtpVerify?: DtpVerifyGlobal }).DtpVerify;
    expect(Object.keys(api ?? {}).sort()).toEqual(['fetchAndVerify', 'verifyCredential', 'verifyCustody']);

    const key = await newKey('browser-key');
    const log = world();
    const answer = JSON.parse(JSON.stringify(await log.answer(POLISHED, key))) as unknown;
    const keys = { keys: [key.publicJwk] };
    const good = await api!.verifyCustody(answer, { diamondId: POLISHED, keys, record: log.record(POLISHED) });
    expect(good).toMatchObject({ ok: true, entries: 9, record: 'matched', checkpoint: { kid: 'browser-key' } });

    const bad = await api!.verifyCustody(answer, { diamondId: POLISHED, keys, record: { ...log.record(POLISHED), polished: { carats: '9.99' } } });
    expect(bad).toMatchObject({ ok: false, failure: { code: 'record', leaf_index: 11 } });

    const bodies: Record<string, unknown> = { '/custody': answer, '/keys': keys, '/record': log.record(POLISHED) };
    const fetch: VerifyFetch = (url) => Promise.resolve({ ok: true, status: 200, text: () => Promise.resolve(JSON.stringify(bodies[url])) });
    const fetched = await api!.fetchAndVerify({ fetch, custodyUrl: '/custody', keysUrl: '/keys', recordUrl: '/record' });
    expect(fetched).toMatchObject({ ok: true, diamond_id: POLISHED });
  });
});
