import { maxHeaderSize } from 'node:http';
import { isIP, type LookupFunction } from 'node:net';
import { Client, type Dispatcher } from 'undici';
import { checkedTarget, hostOf, Resolver, systemResolver, UrlRefused } from './url-guard';

/** Response bodies are read up to this many bytes (then the connection is closed); the log keeps the first RESPONSE_KEPT_BYTES. */
export const RESPONSE_READ_BYTES = 64 * 1024;
export const RESPONSE_KEPT_BYTES = 1024;

export interface SendOutcome {
  /** The HTTP status, or null when no answer came (refused, connection error, timeout). */
  status: number | null;
  /** What went wrong (null for a 2xx): the error, or the status with up to 1 KiB of the body. */
  error: string | null;
}

export interface SenderOptions {
  /** The whole exchange's limit: connecting included, past it the connection is destroyed. */
  timeoutMs: number;
  allowPrivate: boolean;
  resolve?: Resolver;
  /** Extra CA certificates for https receivers (tests). */
  ca?: string | Buffer;
}

/** Idle kept-alive connections close after this (under Node's 5 s server default, so the receiver seldom closes first). */
const IDLE_SOCKET_MS = 4000;
/** A route (a webhook's connection to its URL) not used for this long is dropped, its connection closed. */
const ROUTE_IDLE_MS = 60_000;
/** Errors of a connection that failed before any answer: the receiver closed or reset it (a kept one, mostly). */
const DROPPED = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * The name look-up of a new connection to `target`: the URL checked (SSRF), then the first address it resolved to.
 * A refusal fails the connection with the UrlRefused error, before any connection is made.
 */
function checkingLookup(target: URL, allowPrivate: boolean, resolve: Resolver): LookupFunction {
  return (_host, options, cb) => {
    checkedTarget(target, allowPrivate, resolve).then(
      (addr) => {
        if ((options as { all?: boolean }).all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [addr]);
        else cb(null, addr.address, addr.family);
      },
      (err: Error) => cb(err as NodeJS.ErrnoException, '', 0),
    );
  };
}

/**
 * Sends signed CloudEvents to webhooks (DESIGN.md "Events out..."), over undici: one connection per webhook (an undici
 * `Client`, which holds one), kept alive between its deliveries, so they pay no TCP (and TLS) handshake and no name
 * look-up each. A webhook has one request in flight at a time, so its connection is never shared or waited for; two
 * webhooks of one receiver do not queue behind each other. undici's dispatcher costs well under half the CPU of
 * node:http's client per request (docs/webhooks.md), and delivery is most of what a worker does. Every new connection
 * goes only to an address just checked: undici passes `lookup` to `net.connect`, which calls it only when it opens a
 * connection; a kept one was checked when it was made. `close()` ends every connection (the worker's shutdown).
 */
export class WebhookSender {
  private readonly routes = new Map<string, Route>();
  private sweptAt = Date.now();
  private closed = false;

  constructor(private readonly opts: SenderOptions) {}

  /**
   * One POST of a signed CloudEvent to a webhook: the URL checked again (SSRF) for every new connection, which goes
   * only to the address just checked (DESIGN.md: "checked at subscription and again at each connection"); no
   * redirect followed (a 3xx is a failure); the body read up to 64 KiB; the whole exchange within `timeoutMs`, after
   * which the connection is destroyed (one connection per webhook at most, never left hanging). The connection is
   * kept for the next delivery; one the receiver closed or reset before answering is replaced once, at once.
   * `connection` names whose connection it is (the webhook's id); sends with the same name and URL share it, one at
   * a time. Without it, the URL's.
   */
  async send(url: string, headers: Record<string, string>, body: string, connection = ''): Promise<SendOutcome> {
    if (this.closed) return { status: null, error: 'not sent: the sender is closed' };
    const route = await this.routeOf(connection, url);
    if (route.client === null) return { status: null, error: route.refused };
    const request = { path: route.path, method: 'POST' as const, headers: { ...FIXED_HEADERS, ...headers }, body };
    const deadline = Date.now() + this.opts.timeoutMs;
    const first = await post(route.client, request, this.opts.timeoutMs);
    if (!first.dropped) return first.outcome;
    return (await post(route.client, request, Math.max(1, deadline - Date.now()))).outcome;
  }

  /** Ends every connection; sends after this fail at once. */
  async close(): Promise<void> {
    this.closed = true;
    const routes = [...this.routes.values()];
    this.routes.clear();
    await Promise.allSettled(routes.map((r) => r.client?.destroy()));
  }

  /**
   * Where `connection`'s sends to `url` go: made at its first send (the URL parsed, and what needs no name look-up
   * checked: the scheme, and an address written in the URL, which Node does not look up, so the connection's look-up
   * would not see it), kept while used; routes not used for ROUTE_IDLE_MS are dropped on the way (their connections
   * closed).
   */
  private async routeOf(connection: string, url: string): Promise<Route> {
    const now = Date.now();
    if (now - this.sweptAt > ROUTE_IDLE_MS) {
      this.sweptAt = now;
      for (const [key, r] of this.routes)
        if (now - r.used > ROUTE_IDLE_MS) {
          this.routes.delete(key);
          void r.client?.destroy().catch(() => undefined);
        }
    }
    const key = `${connection} ${url}`;
    let route = this.routes.get(key);
    if (route === undefined) {
      route = await this.newRoute(url);
      if (this.closed) {
        void route.client?.destroy().catch(() => undefined);
        return { ...route, client: null, refused: 'not sent: the sender is closed' };
      }
      const known = this.routes.get(key); // another send made it meanwhile
      if (known) void route.client?.destroy().catch(() => undefined);
      else this.routes.set(key, route);
      route = known ?? route;
    }
    route.used = now;
    return route;
  }

  private async newRoute(url: string): Promise<Route> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return { client: null, refused: 'invalid url', path: '', used: 0 };
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') return { client: null, refused: 'refused: url must use http or https', path: '', used: 0 };
    if ((!this.opts.allowPrivate && target.protocol !== 'https:') || isIP(hostOf(target)) !== 0) {
      try {
        await checkedTarget(target, this.opts.allowPrivate);
      } catch (err) {
        return { client: null, refused: failure(err as Error), path: '', used: 0 };
      }
    }
    const client = new Client(target.origin, {
      keepAliveTimeout: IDLE_SOCKET_MS,
      keepAliveMaxTimeout: IDLE_SOCKET_MS,
      connect: {
        timeout: this.opts.timeoutMs,
        lookup: checkingLookup(target, this.opts.allowPrivate, this.opts.resolve ?? systemResolver),
        ...(this.opts.ca ? { ca: this.opts.ca } : {}),
      },
    });
    return { client, refused: null, path: `${target.pathname}${target.search}`, used: 0 };
  }
}

/** A connection's way to one URL: its undici Client (one connection), or why nothing is sent there. */
type Route = { client: Client; refused: null; path: string; used: number } | { client: null; refused: string; path: string; used: number };

const FIXED_HEADERS = { 'content-type': 'application/json', 'user-agent': 'dtp-webhooks/1' };

/** The `location` header among undici's raw response headers (name, value, name, value...). */
function locationOf(raw: Buffer[]): string | null {
  for (let i = 0; i + 1 < raw.length; i += 2)
    if (raw[i].length === 8 && raw[i].toString('latin1').toLowerCase() === 'location') return raw[i + 1].toString('utf8');
  return null;
}

/** The cause of a failure that is no answer (a refused URL included), as the delivery log writes it. */
function failure(e: Error): string {
  if (e instanceof UrlRefused) return `refused: url ${e.message}`;
  const code = (e as NodeJS.ErrnoException).code;
  // an answer that is not HTTP/1.1 (undici's parser: HPE_ codes), or one whose head is over the limit
  if (e.name === 'HTTPParserError' || code === 'UND_ERR_HEADERS_OVERFLOW') return `invalid response: ${described(e)}`;
  return `connection failed: ${described(e)}`;
}

/** Words, with their code, for the system's errors whose message repeats the code with an address. */
const SYSTEM_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'the receiver reset the connection',
  EPIPE: 'the receiver closed the connection',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'timed out',
};

/** An error in the delivery log's words: undici's own codes in words, a system error's with its code, TLS's message and code. */
function described(e: Error, answering = false): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'UND_ERR_SOCKET') return answering ? 'the receiver closed the connection before the end of its answer' : 'the receiver closed the connection';
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connect timed out';
  if (code === 'UND_ERR_HEADERS_OVERFLOW') return `its head is over ${maxHeaderSize / 1024} KiB`; // undici's limit is node's (--max-http-header-size)
  if (code === undefined || code.startsWith('UND_ERR') || code.startsWith('HPE_')) return e.message;
  if (Object.hasOwn(SYSTEM_ERRORS, code)) return `${SYSTEM_ERRORS[code]} (${code})`;
  const message = e.message.replace(NODE_CA_HINT, '');
  return message.includes(code) ? message : `${message} (${code})`;
}

/**
 * Advice Node 24 appends to some certificate errors ("self-signed certificate; if the root CA is installed locally,
 * try running Node.js with --use-system-ca"): about the platform's own command line, nothing a receiver's owner can
 * act on, so the delivery log leaves it out and reads as it does on Node 20 and 22.
 */
const NODE_CA_HINT = /; if the root CA is installed locally, try running Node\.js with\s+--use-system-ca$/;

/**
 * One request through undici's dispatcher (its handler interface: no stream or promise per request); `dropped` when
 * the connection failed before any answer in a way that sending again on a new one may cure (a kept connection the
 * receiver had closed).
 */
function post(client: Client, request: Dispatcher.DispatchOptions, timeoutMs: number): Promise<{ outcome: SendOutcome; dropped: boolean }> {
  return new Promise((resolve) => {
    let settled = false;
    let abort: ((err?: Error) => void) | null = null;
    let status = 0;
    let location: string | null = null;
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (outcome: SendOutcome, stop: boolean, dropped = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (stop) abort?.(STOPPED);
      resolve({ outcome, dropped });
    };
    const answered = (stop: boolean) => {
      if (status >= 200 && status < 300) return done({ status, error: null }, stop);
      const text = Buffer.concat(chunks).subarray(0, RESPONSE_KEPT_BYTES).toString('utf8');
      const where = status >= 300 && status < 400 ? ` (redirects are not followed${location ? `: to ${location}` : ''})` : '';
      done({ status, error: `HTTP ${status}${where}${text ? `: ${text}` : ''}` }, stop);
    };
    // Past the deadline the request is aborted, which destroys its connection; one still waiting for a connection is
    // aborted as soon as it gets one (its connection attempt itself ends at the same timeout, the client's).
    const timer = setTimeout(() => done({ status: null, error: `timed out after ${timeoutMs} ms` }, true), timeoutMs);
    client.dispatch(request, {
      onConnect(a) {
        abort = a;
        if (settled) a(STOPPED);
      },
      onHeaders(code, raw) {
        if (code < 200) return true; // 1xx: the answer is still to come
        status = code;
        if (code >= 300 && code < 400) location = locationOf(raw);
        return true;
      },
      onData(chunk) {
        if (size < RESPONSE_KEPT_BYTES && (status < 200 || status >= 300)) chunks.push(chunk.subarray(0, RESPONSE_KEPT_BYTES - size));
        size += chunk.length;
        if (size >= RESPONSE_READ_BYTES) answered(true); // the rest is not read: the connection goes
        return true;
      },
      onComplete() {
        answered(false); // read to its end: the connection is kept
      },
      onError(e) {
        if (e === STOPPED) return;
        if (status !== 0) return done({ status, error: `response error: ${described(e, true)}` }, true);
        done({ status: null, error: failure(e) }, true, DROPPED.has((e as NodeJS.ErrnoException).code ?? ''));
      },
    });
  });
}

/** The error a request is aborted with when this side stops it (timed out, body over the limit): not a failure to log. */
const STOPPED = new Error('stopped by the sender');
