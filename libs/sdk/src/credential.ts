import type { DtpClient } from './client';
import { unwrap } from './client';

/**
 * The origin credential of a diamond (`GET {search_url}/v1/diamonds/{id}/credential`, a non-participant's token): a
 * W3C Verifiable Credential 2.0 as a JWT (`application/vc+jwt`), the text to store, hand over, or check with
 * `@dtp/verify`'s `verifyCredential(jwt, {keys})` (docs/provenance.md section 7). Errors throw DtpApiError: 404 for an
 * unknown diamond, 503 with `retryAfterSeconds` while the custody log catches up with a change made seconds ago (the
 * SDK's retries cover it for GET as for any call).
 */
export async function getOriginCredential(dtp: Pick<DtpClient, 'search'>, diamondId: string): Promise<string> {
  const text = await unwrap(
    dtp.search.GET('/v1/diamonds/{diamond_id}/credential', {
      params: { path: { diamond_id: diamondId } },
      headers: { accept: 'application/vc+jwt, application/json' },
      parseAs: 'text',
    }),
  );
  return String(text).trim();
}
