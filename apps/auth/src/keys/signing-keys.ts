import { Inject, Injectable, Optional } from '@nestjs/common';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, JWK, KeyLike } from 'jose';
import type { Logger } from 'pino';
import type { EntityManager } from 'typeorm';
import { LOGGER } from '@dtp/service-kit';
import type { AuthConfig } from '../config';
import { AUTH_CONFIG } from '../tokens';
import { PrivateKeyCodec, Secret } from './key-crypto';
import { SigningKeysRepository } from './signing-keys.repository';

export const SIGNING_ALG = 'ES256';
/** Allowance for clock skew between the issuer and the verifiers. */
const SKEW_SECONDS = 60;

export interface ActiveKey {
  kid: string;
  key: Secret<KeyLike>;
}

export interface RotationResult {
  kid: string;
  retired: string[];
  purged: string[];
}

/** What `rotateIfOlderThan` did, and when the active key is due next (seconds from now). */
export interface ScheduledRotation {
  rotated?: RotationResult;
  /** Set when there was no key at all and the first one was created. */
  created?: string;
  dueInSeconds: number;
}

/**
 * The issuer's ES256 keys, kept in the auth database. One key is active (signs new tokens); retired keys stay in
 * the JWKS until every token they signed has expired (retired_at + token TTL + key cache + skew), after which
 * their private half is erased and they leave the JWKS.
 */
@Injectable()
export class SigningKeys {
  private cached?: { key: ActiveKey; loadedAt: number };
  private readonly tokenTtlSeconds: number;
  private readonly cacheSeconds: number;

  constructor(
    @Inject(SigningKeysRepository) private readonly repo: SigningKeysRepository,
    @Inject(PrivateKeyCodec) private readonly codec: PrivateKeyCodec,
    @Inject(AUTH_CONFIG) config: AuthConfig,
    @Optional() @Inject(LOGGER) private readonly logger?: Logger,
  ) {
    this.tokenTtlSeconds = config.TOKEN_TTL_SECONDS;
    this.cacheSeconds = config.SIGNING_KEY_CACHE_SECONDS;
  }

  /** Seconds a retired key stays published. */
  get publishWindowSeconds(): number {
    return this.tokenTtlSeconds + this.cacheSeconds + SKEW_SECONDS;
  }

  /**
   * Creates the first key when there is none (first start), and stores the active key's private half sealed with
   * SIGNING_KEY_ENCRYPTION_KEY when it is not yet (written before the variable was set, or sealed with a key now in
   * SIGNING_KEY_ENCRYPTION_KEY_PREVIOUS). Safe when several instances start together.
   */
  async ensureActiveKey(): Promise<string> {
    return this.repo.locked(async (m) => {
      const active = await this.repo.findActiveWithPrivateKey(m);
      if (!active) return this.createFirstKey(m);
      if (active.private_jwk) {
        let resealed = active.private_jwk;
        try {
          resealed = this.codec.reseal(active.kid, active.private_jwk);
        } catch (err) {
          // No configured key opens it: tokens cannot be signed until one does, or `auth:cli rotate-keys` makes a new key.
          this.logger?.error({ kid: active.kid, err: err instanceof Error ? err.message : String(err) }, 'the active signing key does not open');
        }
        if (resealed !== active.private_jwk) {
          await this.repo.setPrivateKey(m, active.kid, resealed);
          this.logger?.info({ kid: active.kid }, 'the active signing key is now stored sealed with SIGNING_KEY_ENCRYPTION_KEY');
        }
      }
      return active.kid;
    });
  }

  /** Adds a new active key and retires the current one; erases keys past their publication window. */
  async rotate(): Promise<RotationResult> {
    const result = await this.repo.locked((m) => this.rotateIn(m));
    this.rotated(result);
    return result;
  }

  /**
   * Rotates when the active key is at least `maxAgeSeconds` old (by the database's clock), under the key lock:
   * however many instances run this at once, a key due for rotation is rotated once. Creates the first key when
   * there is none.
   */
  async rotateIfOlderThan(maxAgeSeconds: number): Promise<ScheduledRotation> {
    const outcome = await this.repo.locked(async (m): Promise<ScheduledRotation> => {
      const active = await this.repo.activeAge(m);
      if (!active) return { created: await this.createFirstKey(m), dueInSeconds: maxAgeSeconds };
      if (active.ageSeconds < maxAgeSeconds) return { dueInSeconds: maxAgeSeconds - active.ageSeconds };
      return { rotated: await this.rotateIn(m), dueInSeconds: maxAgeSeconds };
    });
    if (outcome.rotated) this.rotated(outcome.rotated);
    return outcome;
  }

  /** The key that signs new tokens (cached for SIGNING_KEY_CACHE_SECONDS so rotations elsewhere are seen). */
  async active(): Promise<ActiveKey> {
    const now = Date.now();
    if (this.cached && now - this.cached.loadedAt < this.cacheSeconds * 1000) return this.cached.key;
    const row = await this.repo.findActiveWithPrivateKey();
    if (!row || !row.private_jwk) throw new Error('no active signing key: run the service once or `auth:cli rotate-keys`');
    if (this.cached?.key.kid === row.kid) {
      this.cached.loadedAt = now;
      return this.cached.key;
    }
    const jwk = JSON.parse(this.codec.open(row.kid, row.private_jwk)) as JWK;
    const key = (await importJWK(jwk, SIGNING_ALG)) as KeyLike;
    this.cached = { key: { kid: row.kid, key: new Secret(key) }, loadedAt: now };
    return this.cached.key;
  }

  /** Public keys to publish: the active one and those retired less than the publication window ago. */
  async jwks(): Promise<{ keys: JWK[] }> {
    const rows = await this.repo.published(this.publishWindowSeconds);
    return { keys: rows.map((r) => ({ ...r.public_jwk, kid: r.kid, alg: r.alg, use: 'sig' })) };
  }

  private async rotateIn(m: EntityManager): Promise<RotationResult> {
    const retired = await this.repo.retireActive(m);
    const kid = await this.insertKey(m);
    const purged = await this.repo.erasePrivateKeysRetiredBefore(m, this.publishWindowSeconds);
    return { kid, retired, purged };
  }

  private rotated(result: RotationResult): void {
    this.cached = undefined;
    this.logger?.info(result, 'signing keys rotated');
  }

  private async createFirstKey(m: EntityManager): Promise<string> {
    const kid = await this.insertKey(m);
    this.logger?.info({ kid }, 'no signing key found: generated the first one');
    return kid;
  }

  private async insertKey(m: EntityManager): Promise<string> {
    const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(publicJwk);
    const privateJwk = JSON.stringify({ ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG });
    await this.repo.insert(m, { kid, alg: SIGNING_ALG, public_jwk: publicJwk, private_jwk: this.codec.seal(kid, privateJwk) });
    return kid;
  }
}
