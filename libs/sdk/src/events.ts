import type { Client } from 'openapi-fetch';
import type { DtpClient } from './client';
import { unwrap } from './client';
import type { DtpEvent, DtpEventType } from './webhooks';

/** `GET /events` as the pager sees it (a paths type of its own, so it does not depend on the generated one's shape). */
interface FeedPaths {
  '/events': {
    get: {
      parameters: { query?: { after?: string; limit?: number; types?: string }; header?: never; path?: never; cookie?: never };
      requestBody?: never;
      responses: { 200: { headers: Record<string, unknown>; content: { 'application/json': { events: DtpEvent[]; next_cursor: string } } } };
    };
  };
}

export interface EventFeedOptions {
  /** A `next_cursor` from before (absent: from the oldest event kept). */
  after?: string;
  /** Only these types. */
  types?: DtpEventType[];
  /** Page size, 1 to 500 (default 100). */
  limit?: number;
  /** Keep following the feed once caught up, asking again every `pollIntervalMs` (default 1000) until `signal` aborts. */
  follow?: boolean;
  pollIntervalMs?: number;
  signal?: AbortSignal;
  /** Called with the cursor after each page's events were handed out: store it to resume later. */
  onCursor?: (cursor: string) => void | Promise<void>;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/** One page of the feed: its events and the cursor after them. */
export interface EventFeedPage {
  events: DtpEvent[];
  next_cursor: string;
}

/**
 * The feed page by page (what eventFeed is made of): each page's `next_cursor` is where to resume once all its
 * events are handled. `limit` may be a function, read before each page (to stop exactly after n events).
 */
export async function* eventPages(
  dtp: Pick<DtpClient, 'platform'>,
  opts: Omit<EventFeedOptions, 'limit' | 'onCursor'> & { limit?: number | (() => number) } = {},
): AsyncGenerator<EventFeedPage, string | undefined> {
  const client = dtp.platform as unknown as Client<FeedPaths>;
  let after = opts.after;
  for (;;) {
    if (opts.signal?.aborted) return after;
    const limit = typeof opts.limit === 'function' ? opts.limit() : (opts.limit ?? 100);
    const query: { after?: string; limit?: number; types?: string } = { limit };
    if (after !== undefined) query.after = after;
    if (opts.types && opts.types.length > 0) query.types = opts.types.join(',');
    const page = await unwrap(client.GET('/events', { params: { query } }));
    after = page.next_cursor;
    yield page;
    if (page.events.length < limit) {
      if (!opts.follow) return after;
      await sleep(opts.pollIntervalMs ?? 1000, opts.signal);
    }
  }
}

/**
 * The caller's events from platform's event feed, oldest first, page after page (docs/webhooks.md "The event feed"):
 *
 *   for await (const event of eventFeed(dtp, { after: savedCursor, onCursor: save })) handle(event);
 *
 * Ends when caught up, unless `follow`. Errors of the API throw DtpApiError (retries as every SDK call).
 */
export async function* eventFeed(dtp: Pick<DtpClient, 'platform'>, opts: EventFeedOptions = {}): AsyncGenerator<DtpEvent, string | undefined> {
  let last = opts.after;
  for await (const page of eventPages(dtp, opts)) {
    for (const event of page.events) yield event;
    if (page.next_cursor !== last) await opts.onCursor?.(page.next_cursor);
    last = page.next_cursor;
  }
  return last;
}
