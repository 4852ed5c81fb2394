import { randomBytes } from 'node:crypto';
import { eventFeed, eventPages, signWebhook } from '@dtp/sdk';
import type { DtpEvent, DtpEventType } from '@dtp/sdk';
import { clientFor } from '../config';
import { EXIT, ExitCode, UsageError } from '../exit-codes';
import { CliIo } from '../io';

export interface ListenOptions {
  profile?: string;
  forwardTo: string;
  secret?: string;
  after?: string;
  fromStart: boolean;
  types?: string;
  pollInterval: number;
  maxEvents?: number;
}

const TYPES: readonly string[] = [
  'dtp.shipment.inbound',
  'dtp.shipment.accepted',
  'dtp.shipment.rejected',
  'dtp.diamond.updated',
  'dtp.diamond.deleted',
  'dtp.grading.received',
  'dtp.validation.answered',
];
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/**
 * `dtp events listen --forward-to URL`: follows platform's event feed (GET /events) and POSTs each event, signed as a
 * webhook (Standard Webhooks headers, with --secret or $DTP_WEBHOOK_SECRET, else a secret made now and printed), to
 * a local URL, in order; a receiver that is down or answers non-2xx is retried (1 s, doubling to 30 s) before the
 * next event. Starts after the newest event unless --after or --from-start. Stops on Ctrl-C (exit 130) or after
 * --max-events.
 */
export async function eventsListen(io: CliIo, opts: ListenOptions): Promise<ExitCode> {
  let target: URL;
  try {
    target = new URL(opts.forwardTo);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new UsageError(`--forward-to must be an http(s) URL (got ${opts.forwardTo})`);
  }
  const types = opts.types ? opts.types.split(',').map((t) => t.trim()) : undefined;
  const unknown = (types ?? []).filter((t) => !TYPES.includes(t));
  if (unknown.length > 0) throw new UsageError(`--types: unknown event types ${unknown.join(', ')} (known: ${TYPES.join(', ')})`);
  if (opts.after !== undefined && opts.fromStart) throw new UsageError('give --after or --from-start, not both');
  let secret = opts.secret ?? io.env.DTP_WEBHOOK_SECRET;
  if (secret !== undefined && !/^whsec_[A-Za-z0-9+/]+=*$/.test(secret)) throw new UsageError('--secret must be whsec_ + base64');
  if (secret === undefined) {
    secret = `whsec_${randomBytes(32).toString('base64')}`;
    io.err(`signing with ${secret} (pass --secret or set DTP_WEBHOOK_SECRET to keep one)\n`);
  }
  const dtp = clientFor(io, opts.profile, 'platform');
  const ac = new AbortController();
  let interrupted = false;
  const stopInterrupts = io.onInterrupt?.(() => {
    interrupted = true;
    ac.abort();
  });
  try {
    let after = opts.after;
    if (after === undefined && !opts.fromStart) {
      // The newest cursor: read to the end of the feed without forwarding.
      for await (const _event of eventFeed(dtp, { limit: 500, onCursor: (c) => void (after = c) })) void _event;
    }
    io.err(`forwarding events${after ? ` after ${after}` : ' from the oldest kept'} to ${target.href} (Ctrl-C stops)\n`);
    let forwarded = 0;
    // Page by page: the cursor moves once a page is forwarded whole; --max-events asks for no more than it needs, so
    // it stops at a page's end. After Ctrl-C mid-page, resuming with the printed cursor forwards the rest of that
    // page again (at least once, as webhooks: deduplicate on webhook-id).
    const remaining = () => Math.min(100, opts.maxEvents === undefined ? 100 : opts.maxEvents - forwarded);
    const pages = eventPages(dtp, {
      after,
      limit: remaining,
      types: types as DtpEventType[] | undefined,
      follow: true,
      pollIntervalMs: opts.pollInterval,
      signal: ac.signal,
    });
    pages: for await (const page of pages) {
      for (const event of page.events) {
        await forward(io, target, secret, event, ac.signal);
        if (ac.signal.aborted) break pages;
        forwarded += 1;
      }
      after = page.next_cursor;
      if (opts.maxEvents !== undefined && forwarded >= opts.maxEvents) break;
    }
    io.err(`stopped after ${forwarded} events; resume with --after ${after ?? '(none)'}\n`);
    return interrupted ? EXIT.interrupted : EXIT.ok;
  } finally {
    stopInterrupts?.();
  }
}

/** POSTs one event until the receiver answers 2xx (or the command is stopped). */
async function forward(io: CliIo, target: URL, secret: string, event: DtpEvent, signal: AbortSignal): Promise<void> {
  const body = JSON.stringify(event);
  let delay = 1000;
  while (!signal.aborted) {
    let outcome: string;
    try {
      const res = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signWebhook(secret, event.id, body) },
        body,
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(10_000)]),
      });
      await res.body?.cancel().catch(() => undefined);
      if (res.ok) {
        io.out(`${event.time} ${event.type} ${event.subject} -> ${res.status}\n`);
        return;
      }
      outcome = `HTTP ${res.status}`;
    } catch (err) {
      if (signal.aborted) return;
      outcome = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
    }
    io.err(`${event.type} ${event.subject}: ${outcome}; again in ${delay / 1000} s\n`);
    await sleep(delay, signal);
    delay = Math.min(delay * 2, 30_000);
  }
}
