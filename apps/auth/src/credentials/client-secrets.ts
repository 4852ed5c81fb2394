import { Inject, Injectable } from '@nestjs/common';
import type { AuthConfig } from '../config';
import { AUTH_CONFIG } from '../tokens';
import { decoyHash, hashSecret, ScryptParams, verifySecret } from './secret-hash';

/** Client secret hashing at the configured cost (SCRYPT_LOG_N, r = 8, p = 1); see secret-hash.ts. */
@Injectable()
export class ClientSecrets {
  private readonly params: ScryptParams;
  private readonly decoy: Promise<string>;

  constructor(@Inject(AUTH_CONFIG) config: AuthConfig) {
    this.params = { logN: config.SCRYPT_LOG_N, r: 8, p: 1 };
    this.decoy = decoyHash(this.params);
    this.decoy.catch(() => undefined);
  }

  hash(secret: string): Promise<string> {
    return hashSecret(secret, this.params);
  }

  /**
   * Checks `secret` against `stored`; with no stored hash (unknown client id), against a decoy hash, so the check
   * costs the same and the answer time does not tell whether the client id exists. False then.
   */
  async verify(secret: string, stored: string | undefined): Promise<boolean> {
    const ok = await verifySecret(secret, stored ?? (await this.decoy));
    return ok && stored !== undefined;
  }
}
