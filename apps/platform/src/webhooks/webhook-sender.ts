import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { checkedTarget, hostOf, Resolver, systemResolver, UrlRefused } from './url-guard';

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

/** Idle kept-alive sockets close after this (under Node's 5 s server default, so the receiver seldom closes first). */
const IDLE_SOCKET_MS = 4000;
/** Agents not used for this long are destroyed (their sockets with them). */
const AGENT_IDLE_MS = 60_000;

const agents = new Map<string, { agent: http.Agent; used: number }>();
let sweptAt = Date.now();

/**
 * The keep-alive agent for a receiver: one per origin (and SSRF setting), so a webhook's deliveries reuse a connection
 * instead of paying a TCP (and TLS) handshake, and a name look-up, each. Every new connection is made only to an
 * address just checked (the request's `lookup`, which Node calls only when it opens a connection); a kept one was
 * checked when it was made. (TLS options such as `ca` come with each request, and Node's agent keeps sockets made
 * with different ones apart.)
 */
function agentFor(target: URL, allowPrivate: boolean): http.Agent {
  const now = Date.now();
  if (now - sweptAt > AGENT_IDLE_MS) {
    sweptAt = now;
    for (const [key, a] of agents)
      if (now - a.used > AGENT_IDLE_MS) {
        a.agent.destroy();
        agents.delete(key);
      }
  }
  const key = `${allowPrivate ? 'any' : 'public'}|${target.protocol}//${target.host}`;
  let entry = agents.get(key);
  if (!entry) {
    const options = { keepAlive: true, maxFreeSockets: 4, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' as const };
    entry = { agent: target.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options), used: now };
    agents.set(key, entry);
  }
  entry.used = now;
  return entry.agent;
}

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
 * One POST of a signed CloudEvent to a webhook: the URL checked again (SSRF) for every new connection, which goes only
 * to the address just checked (DESIGN.md: "checked at subscription and again at each connection"); no redirect
 * followed (a 3xx is a failure); the body read up to 64 KiB; the whole exchange within `timeoutMs`, after which the
 * socket is destroyed (one connection per webhook at most, never left hanging). The connection is kept for the next
 * delivery, which then needs no name look-up; a kept one the receiver closed meanwhile is replaced once, at once.
 */
export async function sendWebhook(url: string, headers: Record<string, string>, body: string, opts: SenderOptions): Promise<SendOutcome> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { status: null, error: 'invalid url' };
  }
  // What needs no name look-up is checked at once: the scheme, and an address written in the URL (Node does not look
  // one up, so the connection's look-up would not see it).
  if ((!opts.allowPrivate && target.protocol !== 'https:') || isIP(hostOf(target)) !== 0) {
    try {
      await checkedTarget(target, opts.allowPrivate);
    } catch (err) {
      return { status: null, error: err instanceof UrlRefused ? `refused: url ${err.message}` : String(err) };
    }
  }
  const lookup = checkingLookup(target, opts.allowPrivate, opts.resolve ?? systemResolver);
  const agent = agentFor(target, opts.allowPrivate);
  const deadline = Date.now() + opts.timeoutMs;
  const first = await post(target, lookup, agent, headers, body, opts, opts.timeoutMs);
  if (!first.staleSocket) return first.outcome;
  return (await post(target, lookup, agent, headers, body, opts, Math.max(1, deadline - Date.now()))).outcome;
}

/** One request; `staleSocket` when it failed before any answer on a kept-alive socket (the receiver had closed it). */
function post(
  target: URL,
  lookup: LookupFunction,
  agent: http.Agent,
  headers: Record<string, string>,
  body: string,
  opts: SenderOptions,
  timeoutMs: number,
): Promise<{ outcome: SendOutcome; staleSocket: boolean }> {
  const mod = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const done = (o: SendOutcome, destroy: boolean, staleSocket = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (destroy) req.destroy();
      resolve({ outcome: o, staleSocket });
    };
    const req = mod.request(
      target,
      {
        method: 'POST',
        lookup,
        agent,
        ...(opts.ca ? { ca: opts.ca } : {}),
        headers: { 'content-type': 'application/json', 'user-agent': 'dtp-webhooks/1', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = (destroy: boolean) => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) return done({ status, error: null }, destroy);
          const text = Buffer.concat(chunks).subarray(0, RESPONSE_KEPT_BYTES).toString('utf8');
          const where = status >= 300 && status < 400 ? ` (redirects are not followed${res.headers.location ? `: to ${res.headers.location}` : ''})` : '';
          done({ status, error: `HTTP ${status}${where}${text ? `: ${text}` : ''}` }, destroy);
        };
        res.on('data', (c: Buffer) => {
          if (size >= RESPONSE_READ_BYTES) return;
          chunks.push(c.subarray(0, RESPONSE_READ_BYTES - size));
          size += c.length;
          if (size >= RESPONSE_READ_BYTES) finish(true); // the rest is not read: the connection goes
        });
        res.on('end', () => finish(false)); // read to its end: the connection goes back to the agent
        res.on('error', (e) => done({ status: res.statusCode ?? null, error: `response error: ${e.message}` }, true));
      },
    );
    const timer = setTimeout(() => done({ status: null, error: `timed out after ${opts.timeoutMs} ms` }, true), timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) =>
      e instanceof UrlRefused
        ? done({ status: null, error: `refused: url ${e.message}` }, true)
        : done({ status: null, error: `connection failed: ${e.code ?? e.message}` }, true, req.reusedSocket && (e.code === 'ECONNRESET' || e.code === 'EPIPE')),
    );
    req.end(body);
  });
}
