import { participantWithToken, ParticipantWithToken } from '@dtp/testing';
import { call, PlatformFixture, roughBody, startPlatform } from './helpers';

/**
 * Writes are limited per client too (RATE_LIMIT_PER_CLIENT, libs/service-kit rate-limit.ts): the refused request
 * never reaches the handler, so nothing is registered, and another producer is not limited.
 */
describe('platform: per-client rate limits on writes', () => {
  let f: PlatformFixture;
  let a: ParticipantWithToken;
  let b: ParticipantWithToken;

  beforeAll(async () => {
    f = await startPlatform({ RATE_LIMIT_PER_CLIENT: '2', RATE_LIMIT_WINDOW_SECONDS: '60' });
    a = await participantWithToken(f.stack, 'producer', 'platform');
    b = await participantWithToken(f.stack, 'producer', 'platform');
  });
  afterAll(async () => {
    await f?.close();
  });

  const count = async () => Number((await f.db.query<{ n: string }>('SELECT count(*) AS n FROM diamonds')).rows[0].n);

  it('the third registration of client A within the window is 429 and registers nothing; client B still registers', async () => {
    for (let i = 0; i < 2; i++) expect((await call(f, 'POST', '/diamonds/rough/create', a.token, roughBody({ box_id: `RL-A-${i}` }))).status).toBe(200);
    const before = await count();
    const refused = await call<{ reason: string }>(f, 'POST', '/diamonds/rough/create', a.token, roughBody({ box_id: 'RL-A-2' }));
    expect(refused.status).toBe(429);
    expect(refused.body.reason).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(await count()).toBe(before);
    const other = await call(f, 'POST', '/diamonds/rough/create', b.token, roughBody({ box_id: 'RL-B-0' }));
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-remaining')).toBe('1');
  });
});
