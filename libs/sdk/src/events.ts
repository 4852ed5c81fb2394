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

/**
 * The caller's events from platform's event feed, oldest first, page after page (docs/webhooks.md "The event feed"):
 *
 *   for await (const event of eventFeed(dtp, { after: savedCursor, onCursor: save })) handle(event);
 *
 * Ends when caught up, unless `follow`. Errors of the API throw DtpApiError (retries as every SDK call).
 */
export async function* eventFeed(dtp: Pick<DtpClient, 'platform'>, opts: EventFeedOptions = {}): AsyncGenerator<DtpEvent, string | undefined> {
  const client = dtp.platform as unknown as Client<FeedPaths>;
  let after = opts.after;
  for (;;) {
    if (opts.signal?.aborted) return after;
    const query: { after?: string; limit?: number; types?: string } = { limit: opts.limit ?? 100 };
    if (after !== undefined) query.after = after;
    if (opts.types && opts.types.length > 0) query.types = opts.types.join(',');
    const page = await unwrap(client.GET('/events', { params: { query } }));
    for (const event of page.events) yield event;
    const moved = page.next_cursor !== after;
    after = page.next_cursor;
    if (moved) await opts.onCursor?.(after);
    if (page.events.length < (opts.limit ?? 100)) {
      if (!opts.follow) return after;
      await sleep(opts.pollIntervalMs ?? 1000, opts.signal);
    }
  }
}
