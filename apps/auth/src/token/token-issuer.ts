import { Inject, Injectable } from '@nestjs/common';
import { SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import type { TokenResponse } from '@dtp/domain';
import { SIGNING_ALG, SigningKeys } from '../keys/signing-keys';
import type { AuthenticatedClient } from '../participants/participants.service';
import type { AuthConfig } from '../config';
import { AUTH_CONFIG } from '../tokens';

/** Signs RFC 9068 access tokens (`typ: at+jwt`, ES256, `kid`). */
@Injectable()
export class TokenIssuer {
  private readonly issuer: string;
  private readonly ttlSeconds: number;

  constructor(
    @Inject(SigningKeys) private readonly keys: SigningKeys,
    @Inject(AUTH_CONFIG) config: AuthConfig,
  ) {
    this.issuer = config.AUTH_ISSUER;
    this.ttlSeconds = config.TOKEN_TTL_SECONDS;
  }

  /**
   * `certificateThumbprint`: the request came over mutual TLS with that certificate, so the token is bound to it
   * (RFC 8705 3.1: `cnf: {"x5t#S256": ...}`), and the services accept it only on requests made with it.
   */
  async issue(client: AuthenticatedClient, audience: string, certificateThumbprint?: string): Promise<TokenResponse> {
    const { kid, key } = await this.keys.active();
    const now = Math.floor(Date.now() / 1000);
    const p = client.participant;
    const claims: Record<string, unknown> = { client_id: client.clientId, participant_id: p.id, role: p.role, name: p.name };
    if (certificateThumbprint !== undefined) claims.cnf = { 'x5t#S256': certificateThumbprint };
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: SIGNING_ALG, typ: 'at+jwt', kid })
      .setIssuer(this.issuer)
      .setSubject(client.clientId)
      .setAudience(audience)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + this.ttlSeconds)
      .setJti(randomUUID())
      .sign(key.reveal());
    return { access_token: token, token_type: 'Bearer', expires_in: this.ttlSeconds };
  }
}
