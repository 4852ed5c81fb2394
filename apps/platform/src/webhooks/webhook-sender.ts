import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkedTarget, Resolver, systemResolver, UrlRefused } from './url-guard';

/** Response bodies are read up to this many bytes; the log keeps the first RESPONSE_KEPT_BYTES. */
export const RESPONSE_READ_BYTES = 64 * 1024;
export const RESPONSE_KEPT_BYTES = 1024;

export interface SendOutcome {
  /** The HTTP status, or null when no answer came (refused, connection error, timeout). */
  status: number | null;
  /** What went wrong (null for a 2xx): the error, or the status with up to 1 KiB of the body. */
  error: string | null;
}

export interface SenderOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  resolve?: Resolver;
  /** Extra CA certificates for https receivers (tests). */
  ca?: string | Buffer;
}

/**
 * One POST of a signed CloudEvent to a webhook: the URL checked again (SSRF) and the connection made to the checked
 * address; no redirect followed (a 3xx is a failure); the body read up to 64 KiB; the whole exchange within
 * `timeoutMs`, after which the socket is destroyed (one connection per webhook at most, never left hanging).
 */
export async function sendWebhook(url: string, headers: Record<string, string>, body: string, opts: SenderOptions): Promise<SendOutcome> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { status: null, error: 'invalid url' };
  }
  let addr: { address: string; family: number };
  try {
    addr = await checkedTarget(target, opts.allowPrivate, opts.resolve ?? systemResolver);
  } catch (err) {
    return { status: null, error: err instanceof UrlRefused ? `refused: url ${err.message}` : String(err) };
  }
  const lookup: LookupFunction = (_host, options, cb) => {
    if ((options as { all?: boolean }).all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [addr]);
    else cb(null, addr.address, addr.family);
  };
  const mod = target.protocol === 'https:' ? https : http;
  return new Promise<SendOutcome>((resolve) => {
    let settled = false;
    const done = (o: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(o);
    };
    const req = mod.request(
      target,
      {
        method: 'POST',
        lookup,
        agent: false,
        ...(opts.ca ? { ca: opts.ca } : {}),
        headers: { 'content-type': 'application/json', 'user-agent': 'dtp-webhooks/1', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = () => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) return done({ status, error: null });
          const text = Buffer.concat(chunks).subarray(0, RESPONSE_KEPT_BYTES).toString('utf8');
          const where = status >= 300 && status < 400 ? ` (redirects are not followed${res.headers.location ? `: to ${res.headers.location}` : ''})` : '';
          done({ status, error: `HTTP ${status}${where}${text ? `: ${text}` : ''}` });
        };
        res.on('data', (c: Buffer) => {
          if (size >= RESPONSE_READ_BYTES) return;
          chunks.push(c.subarray(0, RESPONSE_READ_BYTES - size));
          size += c.length;
          if (size >= RESPONSE_READ_BYTES) finish();
        });
        res.on('end', finish);
        res.on('error', (e) => done({ status: res.statusCode ?? null, error: `response error: ${e.message}` }));
      },
    );
    const timer = setTimeout(() => done({ status: null, error: `timed out after ${opts.timeoutMs} ms` }), opts.timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) => done({ status: null, error: `connection failed: ${e.code ?? e.message}` }));
    req.end(body);
  });
}
