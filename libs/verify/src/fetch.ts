import type { CustodyAnswer, CustodyCheckpoint } from '@dtp/domain';
import { CustodyKeys, verifyCustody, VerifyResult } from './custody';

/** The part of `fetch` used here (window.fetch and Node's global fetch both fit). */
export type VerifyFetch = (url: string, init?: { headers?: Record<string, string> }) => Promise<{ ok: boolean; status: number; text(): Promise<string> }>;

export interface FetchAndVerifyOptions {
  /** Default: the global fetch. */
  fetch?: VerifyFetch;
  /** The custody answer: `{search_url}/v1/diamonds/{id}/custody` (or a passport's public `/passport/{share_id}/custody`). */
  custodyUrl: string;
  /** The published keys, `{base_url}/.well-known/custody-keys.json` (fetched without `headers`)... */
  keysUrl?: string;
  /** ...or the keys themselves (pinned, or read from a file). */
  keys?: CustodyKeys;
  /** The current record (`{search_url}/v1/diamonds/{id}`); a 404 means deleted. Without it the record is not checked. */
  recordUrl?: string;
  /** Sent with the custody, record and consistency requests (e.g. a search token); never with the keys request. */
  headers?: Record<string, string>;
  /** The diamond; default: the record's `diamond_id`, else the diamond of the answer's last entry. */
  diamondId?: string;
  /** A checkpoint verified before (or a lookup by log_id): the answer's checkpoint must extend it. */
  known?: CustodyCheckpoint | ((logId: string) => CustodyCheckpoint | null | undefined);
  /** `{search_url}/v1/custody/consistency` (`?from=N&to=M` is appended), or a function making the URL. Needed with `known`. */
  consistencyUrl?: string | ((from: number, to: number) => string);
}

/** The result, and the answer that was checked (its checkpoint, with `jws`, is what to remember for next time). */
export type FetchVerifyResult = VerifyResult & { answer?: CustodyAnswer };

class FetchFailed extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly pending = false,
  ) {
    super(message);
  }
}

/**
 * Fetches what `verifyCustody` needs (custody answer, keys, record, consistency proof) and checks it. Never throws
 * for what a server answers: a request that fails gives `{ok: false, failure: {code: 'fetch'}}`, a body that is not
 * JSON `{code: 'format'}`.
 */
export async function fetchAndVerify(opts: FetchAndVerifyOptions): Promise<FetchVerifyResult> {
  // Called as a plain function: window.fetch refuses to run with another `this` ("Illegal invocation").
  const doFetch: VerifyFetch = opts.fetch ?? ((url, init) => globalThis.fetch(url, init));
  const headers = opts.headers ?? {};
  const get = async (what: string, url: string, withHeaders: boolean, allow404 = false, pendingIf404 = false): Promise<unknown> => {
    let response: Awaited<ReturnType<VerifyFetch>>;
    try {
      response = await doFetch(url, withHeaders ? { headers: { accept: 'application/json', ...headers } } : { headers: { accept: 'application/json' } });
    } catch (err) {
      throw new FetchFailed(`could not fetch the ${what} from ${url}: ${(err as Error).message}`);
    }
    if (allow404 && response.status === 404) return null;
    const text = await response.text();
    if (!response.ok)
      throw new FetchFailed(
        `GET ${url} (the ${what}) answered ${response.status}: ${text.slice(0, 200)}`,
        response.status,
        pendingIf404 && response.status === 404,
      );
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new FormatFailed(`the ${what} from ${url} is not JSON`);
    }
  };
  try {
    if (!opts.keys && !opts.keysUrl) throw new TypeError('fetchAndVerify needs keysUrl or keys');
    const [answer, keys, record] = await Promise.all([
      get('custody answer', opts.custodyUrl, true, false, true) as Promise<CustodyAnswer>,
      opts.keys ? Promise.resolve(opts.keys) : (get('custody keys', opts.keysUrl!, false) as Promise<CustodyKeys>),
      opts.recordUrl ? get('record', opts.recordUrl, true, true) : Promise.resolve(undefined),
    ]);
    const cp = (answer as Partial<CustodyAnswer> | null)?.checkpoint;
    const lastEntry = Array.isArray(answer?.entries) ? answer.entries[answer.entries.length - 1] : undefined;
    const recordId = record && typeof record === 'object' ? (record as { diamond_id?: unknown }).diamond_id : undefined;
    const diamondId = opts.diamondId ?? (typeof recordId === 'string' ? recordId : undefined) ?? lastEntry?.entry?.diamond_id ?? '';

    let known: { checkpoint: CustodyCheckpoint; consistency: string[] } | undefined;
    const seen = typeof opts.known === 'function' ? (cp && typeof cp.log_id === 'string' ? opts.known(cp.log_id) : undefined) : opts.known;
    if (seen && cp && typeof cp.tree_size === 'number') {
      known = { checkpoint: seen, consistency: [] };
      if (seen.tree_size > 0 && seen.tree_size < cp.tree_size && seen.log_id === cp.log_id) {
        if (!opts.consistencyUrl) throw new TypeError('fetchAndVerify needs consistencyUrl with known');
        const url =
          typeof opts.consistencyUrl === 'function'
            ? opts.consistencyUrl(seen.tree_size, cp.tree_size)
            : `${opts.consistencyUrl}${opts.consistencyUrl.includes('?') ? '&' : '?'}from=${seen.tree_size}&to=${cp.tree_size}`;
        const proof = (await get('consistency proof', url, true)) as { from?: unknown; to?: unknown; proof?: unknown } | null;
        if (!proof || proof.from !== seen.tree_size || proof.to !== cp.tree_size || !Array.isArray(proof.proof)) {
          throw new FormatFailed(`the consistency answer from ${url} is not {from: ${seen.tree_size}, to: ${cp.tree_size}, proof: [...]}`);
        }
        known.consistency = proof.proof as string[];
      }
    }
    const result = await verifyCustody(answer, { diamondId, keys, ...(record === undefined ? {} : { record }), ...(known ? { known } : {}) });
    return { ...result, answer };
  } catch (err) {
    if (err instanceof FormatFailed) return { ok: false, failure: { code: 'format', message: err.message } };
    if (err instanceof FetchFailed) {
      return {
        ok: false,
        failure: { code: 'fetch', message: err.message, ...(err.status ? { status: err.status } : {}), ...(err.pending ? { pending: true as const } : {}) },
      };
    }
    throw err;
  }
}

class FormatFailed extends Error {}
