import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SearchConfig } from '../config';
import { NOT_FOUND_CSP, renderNotFound } from './passport-page';

/**
 * What the HTML pages behind a share link (the passport, the credential's evidence page) share: the platform's
 * published keys their scripts check against, the link's public address, and the answer when the link resolves to
 * nothing.
 */
@Injectable()
export class SharePages {
  /** The platform's published custody keys the pages' scripts fetch. */
  readonly keysUrl: string;
  /** The keys' origin, for the pages' `connect-src`. */
  readonly keysOrigin: string | null;

  constructor(@Inject(SearchConfig) private readonly config: SearchConfig) {
    this.keysUrl = `${config.PLATFORM_PUBLIC_URL.replace(/\/+$/, '')}/.well-known/custody-keys.json`;
    this.keysOrigin = new URL(config.PLATFORM_PUBLIC_URL).origin;
  }

  /** The link's address: under the configured public address, or the address this request came to. */
  shareUrl(request: FastifyRequest, shareId: string): string {
    const base = this.config.SEARCH_PUBLIC_URL
      ? this.config.SEARCH_PUBLIC_URL.replace(/\/+$/, '')
      : `${request.protocol}://${request.headers.host ?? 'localhost'}`;
    return `${base}/passport/${encodeURIComponent(shareId)}`;
  }

  /**
   * Sends the page `render` builds (200, `csp(keysOrigin)`, no-store). When the link resolves to nothing (`render`
   * throws NotFoundException), a browser (Accept: text/html) gets the 404 page; any other client the API's JSON
   * `{message}` (the exception, thrown on).
   */
  async send(request: FastifyRequest, reply: FastifyReply, render: () => Promise<string>, csp: (keysOrigin: string | null) => string): Promise<void> {
    let html: string;
    try {
      html = await render();
    } catch (err) {
      if (!(err instanceof NotFoundException)) throw err;
      if (!/\btext\/html\b|\bapplication\/xhtml\+xml\b/i.test(request.headers.accept ?? '')) throw err;
      await reply
        .status(404)
        .type('text/html; charset=utf-8')
        .header('content-security-policy', NOT_FOUND_CSP)
        .header('cache-control', 'no-store')
        .send(renderNotFound());
      return;
    }
    await reply
      .status(200)
      .type('text/html; charset=utf-8')
      .header('content-security-policy', csp(this.keysOrigin))
      .header('cache-control', 'no-store')
      .send(html);
  }
}
