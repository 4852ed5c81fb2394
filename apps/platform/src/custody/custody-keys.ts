import { Inject, Injectable } from '@nestjs/common';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, JWK, KeyLike } from 'jose';
import { UnitOfWork } from '@dtp/database';
import type { PlatformConfig } from '../config';
import { PLATFORM_CONFIG } from '../tokens';
import type { CustodyPrivateJwk } from './custody-key-config';
import type { CustodySigningKeyEntity } from './custody.entity';

export const CUSTODY_SIGNING_ALG = 'EdDSA';
/** Advisory lock held while the first key is created, so replicas starting together make one. */
const CUSTODY_KEY_LOCK = 0x64747063; // "dtpc"

/** A public key as the JWKS publishes it. */
export interface CustodyPublicJwk extends JWK {
  kid: string;
  alg: typeof CUSTODY_SIGNING_ALG;
  use: 'sig';
}

export interface CustodySigner {
  kid: string;
  key: KeyLike | Uint8Array;
}

type KeyRow = Pick<CustodySigningKeyEntity, 'kid' | 'public_jwk' | 'private_jwk'>;

const publicOf = (jwk: JWK, kid: string): CustodyPublicJwk => ({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, kid, alg: CUSTODY_SIGNING_ALG, use: 'sig' });

/**
 * The Ed25519 key that signs custody checkpoints: CUSTODY_SIGNING_KEY when set (checked at start-up by the
 * config), otherwise one generated on the first start and kept in `custody_signing_keys` (created under an
 * advisory lock: replicas starting together make one, as auth does with its token keys). The JWKS publishes the
 * signing key and every key kept in the database, so checkpoints signed before a switch to a configured key
 * still verify.
 */
@Injectable()
export class CustodyKeys {
  private signer?: Promise<{ signer: CustodySigner; published: CustodyPublicJwk }>;

  constructor(
    private readonly uow: UnitOfWork,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  /** The key that signs (loaded, or created on the first start, once per instance). */
  async active(): Promise<CustodySigner> {
    return (await this.load()).signer;
  }

  /** `{keys}` of `/.well-known/custody-keys.json`: the signing key first, then the others kept. */
  async jwks(): Promise<{ keys: CustodyPublicJwk[] }> {
    const { published } = await this.load();
    const stored = await this.uow.sql.rows<KeyRow>(`SELECT kid, public_jwk FROM custody_signing_keys ORDER BY created_at, kid`);
    return { keys: [published, ...stored.filter((r) => r.kid !== published.kid).map((r) => publicOf(r.public_jwk, r.kid))] };
  }

  private load(): Promise<{ signer: CustodySigner; published: CustodyPublicJwk }> {
    this.signer ??= this.loadOnce().catch((err: unknown) => {
      this.signer = undefined; // the database may come back: try again next time
      throw err;
    });
    return this.signer;
  }

  private async loadOnce(): Promise<{ signer: CustodySigner; published: CustodyPublicJwk }> {
    const configured = this.config.CUSTODY_SIGNING_KEY;
    const jwk: JWK & { kid: string } = configured ? (JSON.parse(configured) as CustodyPrivateJwk) : await this.storedOrNew();
    const key = await importJWK({ ...jwk, alg: CUSTODY_SIGNING_ALG }, CUSTODY_SIGNING_ALG);
    return { signer: { kid: jwk.kid, key }, published: publicOf(jwk, jwk.kid) };
  }

  /** The oldest stored key, or a new one stored now (under the key lock). */
  private async storedOrNew(): Promise<JWK & { kid: string }> {
    return this.uow.run(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [CUSTODY_KEY_LOCK]);
      const [row] = await tx.rows<KeyRow>(`SELECT kid, private_jwk FROM custody_signing_keys ORDER BY created_at, kid LIMIT 1`);
      if (row) return { ...row.private_jwk, kid: row.kid };
      const { publicKey, privateKey } = await generateKeyPair(CUSTODY_SIGNING_ALG, { crv: 'Ed25519', extractable: true });
      const publicJwk = await exportJWK(publicKey);
      const kid = await calculateJwkThumbprint(publicJwk);
      const privateJwk = { ...(await exportJWK(privateKey)), kid };
      await tx.query(`INSERT INTO custody_signing_keys (kid, public_jwk, private_jwk) VALUES ($1, $2::jsonb, $3::jsonb)`, [
        kid,
        JSON.stringify(publicJwk),
        JSON.stringify(privateJwk),
      ]);
      return privateJwk;
    });
  }
}
