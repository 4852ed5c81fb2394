import type { DataSource } from 'typeorm';
import { UnitOfWork } from '@dtp/database';
import { eventsDatabase } from '../../test/helpers';
import { CLAIM_SQL, RevisionClaims } from './claims';

describe('RevisionClaims (real PostgreSQL)', () => {
  let ds: DataSource;
  let uow: UnitOfWork;
  beforeAll(async () => {
    ({ ds } = await eventsDatabase('claims'));
    uow = new UnitOfWork(ds);
  });
  afterAll(async () => {
    await ds?.destroy();
  });
  const held = async (consumer: string, key: string) =>
    (
      (await ds.query('SELECT revision FROM consumer_state WHERE consumer = $1 AND topic = $2 AND key = $3', [consumer, 't', key])) as { revision: string }[]
    ).map((r) => Number(r.revision));

  it('claims newer revisions only, per key, saying what was held before', async () => {
    const claims = new RevisionClaims('c1');
    expect(
      await uow.run((tx) =>
        claims.claim(tx, 't', [
          { key: 'a', revision: 2 },
          { key: 'b', revision: 1 },
        ]),
      ),
    ).toEqual([{ held: null }, { held: null }]);
    expect(
      await uow.run((tx) =>
        claims.claim(tx, 't', [
          { key: 'b', revision: 1 },
          { key: 'a', revision: 5 },
          { key: 'c', revision: 1 },
        ]),
      ),
    ).toEqual([false, { held: 2 }, { held: null }]);
    expect(await held('c1', 'a')).toEqual([5]);
    // Another state name keeps its own progress.
    expect(await uow.run((tx) => new RevisionClaims('c2').claim(tx, 't', [{ key: 'a', revision: 1 }]))).toEqual([{ held: null }]);
  });

  it('is prepared once per connection: every claim after the first only binds the same statement', async () => {
    const claims = new RevisionClaims('c5');
    const preparedOnItsConnection = () =>
      uow.run(async (tx) => {
        await claims.claim(tx, 't', [{ key: `k${Math.random()}`, revision: 1 }]);
        return (await tx.rows<{ name: string; statement: string }>(`SELECT name, statement FROM pg_prepared_statements WHERE name = 'consumer_claim'`)).map(
          (r) => r.statement,
        );
      });
    for (let i = 0; i < 3; i++) expect(await preparedOnItsConnection()).toEqual([CLAIM_SQL]);
  });

  it('rolls back with the transaction it was made in', async () => {
    const claims = new RevisionClaims('c3');
    await expect(
      uow.run(async (tx) => {
        await claims.claim(tx, 't', [{ key: 'a', revision: 1 }]);
        throw new Error('handler failed');
      }),
    ).rejects.toThrow('handler failed');
    expect(await held('c3', 'a')).toEqual([]);
  });

  it('tells a tombstone the revision held, and keeps the row', async () => {
    const claims = new RevisionClaims('c4');
    await uow.run((tx) => claims.claim(tx, 't', [{ key: 'a', revision: 7 }]));
    expect(await uow.run((tx) => claims.held(tx, 't', 'a'))).toBe(7);
    expect(await uow.run((tx) => claims.held(tx, 't', 'never'))).toBeNull();
    expect(await held('c4', 'a')).toEqual([7]);
  });
});
