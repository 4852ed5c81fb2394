import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, JWK, KeyLike } from 'jose';
import type { Logger } from 'pino';
import { DataSource, EntityManager } from 'typeorm';
import { PrivateKeyCodec, Secret } from './key-crypto';
import { SigningKeyEntity } from './signing-key.entity';

export const SIGNING_ALG = 'ES256';
/** Advisory lock taken while creating or rotating keys, so concurrent starts create only one key. */
const KEY_LOCK = 0x64747061; // "dtpa"
/** Allowance for clock skew between the issuer and the verifiers. */
const SKEW_SECONDS = 60;

export interface ActiveKey {
  kid: string;
  key: Secret<KeyLike>;
}

export interface KeyPolicy {
  tokenTtlSeconds: number;
  cacheSeconds: number;
}

export interface RotationResult {
  kid: string;
  retired: string[];
  purged: string[];
}

/**
 * The issuer's ES256 keys, kept in the auth database. One key is active (signs new tokens); retired keys stay in
 * the JWKS until every token they signed has expired (retired_at + token TTL + key cache + skew), after which
 * their private half is erased and they leave the JWKS.
 */
export class SigningKeys {
  private cached?: { key: ActiveKey; loadedAt: number };

  constructor(
    private readonly ds: DataSource,
    private readonly codec: PrivateKeyCodec,
    private readonly policy: KeyPolicy,
    private readonly logger?: Logger,
  ) {}

  /** Seconds a retired key stays published. */
  get publishWindowSeconds(): number {
    return this.policy.tokenTtlSeconds + this.policy.cacheSeconds + SKEW_SECONDS;
  }

  /** Creates the first key when there is none (first start). Safe when several instances start together. */
  async ensureActiveKey(): Promise<string> {
    return this.ds.transaction(async (m) => {
      await m.query('SELECT pg_advisory_xact_lock($1)', [KEY_LOCK]);
      const active = await m.getRepository(SigningKeyEntity).findOne({ where: { active: true } });
      if (active) return active.kid;
      const kid = await this.insertKey(m);
      this.logger?.info({ kid }, 'no signing key found: generated the first one');
      return kid;
    });
  }

  /** Adds a new active key and retires the current one; erases keys past their publication window. */
  async rotate(): Promise<RotationResult> {
    const result = await this.ds.transaction(async (m) => {
      await m.query('SELECT pg_advisory_xact_lock($1)', [KEY_LOCK]);
      const [retiredRows] = (await m.query(`UPDATE signing_keys SET retired_at = now() WHERE retired_at IS NULL RETURNING kid`)) as [
        { kid: string }[],
        number,
      ];
      const kid = await this.insertKey(m);
      const purged = await this.purge(m);
      return { kid, retired: retiredRows.map((r) => r.kid), purged };
    });
    this.cached = undefined;
    this.logger?.info(result, 'signing keys rotated');
    return result;
  }

  /** The key that signs new tokens (cached for SIGNING_KEY_CACHE_SECONDS so rotations elsewhere are seen). */
  async active(): Promise<ActiveKey> {
    const now = Date.now();
    if (this.cached && now - this.cached.loadedAt < this.policy.cacheSeconds * 1000) return this.cached.key;
    const row = await this.ds
      .getRepository(SigningKeyEntity)
      .createQueryBuilder('k')
      .addSelect('k.privateJwk')
      .where('k.retired_at IS NULL')
      .getOne();
    if (!row || !row.privateJwk) throw new Error('no active signing key: run the service once or `auth:cli rotate-keys`');
    if (this.cached?.key.kid === row.kid) {
      this.cached.loadedAt = now;
      return this.cached.key;
    }
    const jwk = JSON.parse(this.codec.open(row.kid, row.privateJwk)) as JWK;
    const key = (await importJWK(jwk, SIGNING_ALG)) as KeyLike;
    this.cached = { key: { kid: row.kid, key: new Secret(key) }, loadedAt: now };
    return this.cached.key;
  }

  /** Public keys to publish: the active one and those retired less than the publication window ago. */
  async jwks(): Promise<{ keys: JWK[] }> {
    const rows = await this.ds
      .getRepository(SigningKeyEntity)
      .createQueryBuilder('k')
      .where(`k.retired_at IS NULL OR k.retired_at > now() - make_interval(secs => :window)`, { window: this.publishWindowSeconds })
      .orderBy('k.created_at', 'DESC')
      .getMany();
    return { keys: rows.map((r) => ({ ...r.publicJwk, kid: r.kid, alg: r.alg, use: 'sig' })) };
  }

  private async insertKey(m: EntityManager): Promise<string> {
    const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(publicJwk);
    const privateJwk = JSON.stringify({ ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG });
    await m.query(`INSERT INTO signing_keys (kid, alg, public_jwk, private_jwk) VALUES ($1, $2, $3::jsonb, $4)`, [
      kid,
      SIGNING_ALG,
      JSON.stringify(publicJwk),
      this.codec.seal(kid, privateJwk),
    ]);
    return kid;
  }

  private async purge(m: EntityManager): Promise<string[]> {
    const [rows] = (await m.query(
      `UPDATE signing_keys SET private_jwk = NULL
       WHERE private_jwk IS NOT NULL AND retired_at IS NOT NULL AND retired_at <= now() - make_interval(secs => $1)
       RETURNING kid`,
      [this.publishWindowSeconds],
    )) as [{ kid: string }[], number];
    return rows.map((r) => r.kid);
  }
}
