import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { SigningKeyEntity } from './signing-key.entity';

/** Advisory lock taken while creating or rotating keys, so concurrent starts create only one key. */
const KEY_LOCK = 0x64747061; // "dtpa"

/** A new key's columns; `private_jwk` as stored: JWK text, or sealed by PrivateKeyCodec. */
export type NewSigningKey = Pick<SigningKeyEntity, 'kid' | 'alg' | 'public_jwk'> & { private_jwk: string };

/** All SQL on `signing_keys`. Methods that take `m` run in that transaction. */
@Injectable()
export class SigningKeysRepository {
  constructor(@InjectRepository(SigningKeyEntity) private readonly keys: Repository<SigningKeyEntity>) {}

  /** Runs `work` in a transaction that holds the key lock (creation and rotation are serialised across instances). */
  locked<T>(work: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.keys.manager.transaction(async (m) => {
      // A transaction-scoped advisory lock has no TypeORM API.
      await m.query('SELECT pg_advisory_xact_lock($1)', [KEY_LOCK]);
      return work(m);
    });
  }

  /** The active key's id and age in seconds (database clock), or null when there is none. */
  async activeAge(m: EntityManager): Promise<{ kid: string; ageSeconds: number } | null> {
    const row = await m
      .withRepository(this.keys)
      .createQueryBuilder('k')
      .select('k.kid', 'kid')
      .addSelect('EXTRACT(EPOCH FROM now() - k.created_at)::float8', 'age')
      .where('k.retired_at IS NULL')
      .getRawOne<{ kid: string; age: number }>();
    return row ? { kid: row.kid, ageSeconds: Number(row.age) } : null;
  }

  /** The active key with its private half (a column not selected by default); in `m` when given (under the key lock). */
  findActiveWithPrivateKey(m?: EntityManager): Promise<SigningKeyEntity | null> {
    const keys = m ? m.withRepository(this.keys) : this.keys;
    return keys.createQueryBuilder('k').addSelect('k.private_jwk').where('k.retired_at IS NULL').getOne();
  }

  /** Stores a key's private half anew (resealed with another encryption key). */
  async setPrivateKey(m: EntityManager, kid: string, privateJwk: string): Promise<void> {
    await m.withRepository(this.keys).update({ kid }, { private_jwk: privateJwk });
  }

  async insert(m: EntityManager, key: NewSigningKey): Promise<void> {
    await m.withRepository(this.keys).insert(key);
  }

  /** Retires the active key; the kids retired. */
  async retireActive(m: EntityManager): Promise<string[]> {
    const result = await m
      .withRepository(this.keys)
      .createQueryBuilder()
      .update()
      .set({ retired_at: () => 'now()' })
      .where({ retired_at: IsNull() })
      .returning('kid')
      .execute();
    return (result.raw as { kid: string }[]).map((r) => r.kid);
  }

  /** Erases the private half of keys retired at least `windowSeconds` ago; the kids erased. */
  async erasePrivateKeysRetiredBefore(m: EntityManager, windowSeconds: number): Promise<string[]> {
    const result = await m
      .withRepository(this.keys)
      .createQueryBuilder()
      .update()
      .set({ private_jwk: null })
      .where('private_jwk IS NOT NULL AND retired_at IS NOT NULL AND retired_at <= now() - make_interval(secs => :window)', { window: windowSeconds })
      .returning('kid')
      .execute();
    return (result.raw as { kid: string }[]).map((r) => r.kid);
  }

  /** The active key and those retired less than `windowSeconds` ago, newest first. */
  published(windowSeconds: number): Promise<SigningKeyEntity[]> {
    return this.keys
      .createQueryBuilder('k')
      .where(`k.retired_at IS NULL OR k.retired_at > now() - make_interval(secs => :window)`, { window: windowSeconds })
      .orderBy('k.created_at', 'DESC')
      .getMany();
  }
}
