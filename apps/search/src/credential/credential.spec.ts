import { HttpException } from '@nestjs/common';
import { recordSha256, type CustodyAnswer, type DiamondV1 } from '@dtp/domain';
import type { SearchConfig } from '../config';
import type { CustodyQueries } from '../custody/custody.queries';
import type { ReadModelRepository } from '../read-model/read-model.repository';
import { CredentialService } from './credential.service';
import { originOf } from './origin';

const H = (n: number) => n.toString(16).padStart(64, '0');
const entry = (diamond: string, hash: number, prev: number | null, links?: number[]) => ({
  entry: {
    diamond_id: diamond,
    version_id: `v${hash}`,
    action: 'registered' as const,
    actor_participant_id: null,
    occurred_at: '2024-05-01T10:00:00.000Z',
    record_sha256: H(999),
    prev_entry_hash: prev === null ? null : H(prev),
    ...(links ? { links: links.map(H) } : {}),
  },
  entry_hash: H(hash),
  leaf_index: hash,
  inclusion_proof: [],
});
const withCountry = (id: string, country: string | null) =>
  ({
    diamond_id: id,
    provenance: {
      provenance_name: 'x',
      provenance_type: 'mine',
      is_locked: true,
      is_country_code_available: country !== null,
      ...(country ? { country_code: country } : {}),
    },
  }) as unknown as DiamondV1;

describe('originOf: the roots of the custody chain', () => {
  const answer = {
    checkpoint: {},
    entries: [entry('m1', 1, null), entry('m2', 2, null), entry('box', 3, null, [1, 2]), entry('box', 4, 3), entry('cut', 5, 4)],
  } as unknown as CustodyAnswer;

  it("follows links to every producer's diamond: their countries, sorted and distinct; a registration with links is no root", () => {
    const records = new Map([
      ['m1', withCountry('m1', 'ZA')],
      ['m2', withCountry('m2', 'BW')],
      ['box', withCountry('box', null)],
    ]);
    expect(originOf(answer, records)).toEqual({ status: 'confirmed', countries: ['BW', 'ZA'], roots: ['m1', 'm2'] });
    records.set('m2', withCountry('m2', 'ZA'));
    expect(originOf(answer, records).countries).toEqual(['ZA']);
  });

  it('pending, with no country, when any root has no country or is no longer known', () => {
    expect(
      originOf(
        answer,
        new Map([
          ['m1', withCountry('m1', 'ZA')],
          ['m2', withCountry('m2', null)],
        ]),
      ),
    ).toEqual({ status: 'pending', countries: [], roots: ['m1', 'm2'] });
    expect(originOf(answer, new Map([['m1', withCountry('m1', 'ZA')]]))).toMatchObject({ status: 'pending', countries: [] });
  });
});

describe('CredentialService without a signing key', () => {
  it('answers 503 naming CUSTODY_SIGNING_KEY (never a credential signed by another key)', async () => {
    const record = { diamond_id: 'cut', lifecycle_state: 'rough', rough: { carats: '1.00' } } as unknown as DiamondV1;
    const covered = entry('cut', 1, null);
    covered.entry.record_sha256 = recordSha256(record);
    const service = new CredentialService(
      { answerFor: async () => ({ checkpoint: {}, entries: [covered] }) } as unknown as CustodyQueries,
      { find: async () => record, findMany: async () => new Map() } as unknown as ReadModelRepository,
      { PLATFORM_PUBLIC_URL: 'http://p' } as SearchConfig,
    );
    const err = await service.credentialJwt('cut').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpException);
    expect((err as HttpException).getStatus()).toBe(503);
    expect(JSON.stringify((err as HttpException).getResponse())).toContain('CUSTODY_SIGNING_KEY');
  });
});

describe('CredentialService: a log behind the record', () => {
  const KEY = JSON.stringify({
    kty: 'OKP',
    crv: 'Ed25519',
    d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A',
    x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
    kid: 'k1',
  });
  const record = { diamond_id: 'cut', lifecycle_state: 'polished', polished: { carats: '1.00' }, rough: {} } as unknown as DiamondV1;
  const service = (answer: CustodyAnswer | null) =>
    new CredentialService(
      { answerFor: async () => answer } as unknown as CustodyQueries,
      { find: async () => record, findMany: async () => new Map() } as unknown as ReadModelRepository,
      { PLATFORM_PUBLIC_URL: 'http://p', CUSTODY_SIGNING_KEY: KEY } as SearchConfig,
    );

  it('404 while no checkpoint covers the diamond (as the custody route); 409 custody_pending while its record is newer than the log', async () => {
    const none = await service(null)
      .credentialJwt('cut')
      .catch((e: unknown) => e);
    expect((none as HttpException).getStatus()).toBe(404);
    const behind = { checkpoint: {}, entries: [entry('cut', 1, null)] } as unknown as CustodyAnswer; // record_sha256 of another record
    const err = await service(behind)
      .credentialJwt('cut')
      .catch((e: unknown) => e);
    expect((err as HttpException).getStatus()).toBe(409);
    expect((err as HttpException).getResponse()).toMatchObject({ reason: 'custody_pending', retry_after_seconds: 2 });
  });
});
