import { Inject, Injectable } from '@nestjs/common';
import { mayRequestAudience, AUDIENCE_KIND_VALUES, AudienceKind, TokenResponse } from '@dtp/domain';
import type { ClientCertificate, UnreadableClientCertificate } from '@dtp/service-kit';
import { ClientCertificatesService } from '../certificates/client-certificates.service';
import type { AuthConfig } from '../config';
import { ParticipantsService } from '../participants/participants.service';
import { AUTH_CONFIG } from '../tokens';
import { clientValue, OAuthError } from './oauth-error';
import { TokenIssuer } from './token-issuer';
import { TokenRateLimits } from './token-rate-limits';
import { invalidClient, parseTokenRequest } from './token-request';

const strip = (s: string) => s.replace(/\/+$/, '');

/** The client-credentials grant (RFC 6749 4.4) with RFC 8707-style `invalid_target` for a refused audience. */
@Injectable()
export class TokenService {
  private readonly audienceByAddress: Map<string, { kind: AudienceKind; canonical: string }>;

  constructor(
    @Inject(ParticipantsService) private readonly participants: ParticipantsService,
    @Inject(ClientCertificatesService) private readonly certificates: ClientCertificatesService,
    @Inject(TokenIssuer) private readonly issuer: TokenIssuer,
    @Inject(TokenRateLimits) private readonly limits: TokenRateLimits,
    @Inject(AUTH_CONFIG) config: AuthConfig,
  ) {
    const audiences: Record<AudienceKind, string> = config.audiences();
    this.audienceByAddress = new Map(AUDIENCE_KIND_VALUES.map((kind) => [strip(audiences[kind]), { kind, canonical: audiences[kind] }]));
  }

  /**
   * `clientAddress` is the caller's address as TRUSTED_PROXIES lets us know it (see client-address.ts). Limits:
   * every request counts against the address; a failed authentication counts against (client_id, address) and
   * past its limit locks that pair; a token issued counts against the client_id.
   */
  async token(
    body: unknown,
    authorization: string | undefined,
    clientAddress: string,
    certificate?: ClientCertificate | UnreadableClientCertificate,
  ): Promise<TokenResponse> {
    await this.limits.consumeIp(clientAddress);
    const req = parseTokenRequest(body, authorization);
    // RFC 8705 2.2 self_signed_tls_client_auth: client_id and no secret, over mutual TLS with a registered certificate.
    const byCertificate = !!req.clientId && req.clientSecret === undefined && !req.basic && certificate !== undefined;
    if (!req.clientId || (req.clientSecret === undefined && !byCertificate)) {
      throw invalidClient(
        req.basic,
        'client authentication is required: client_id and client_secret, HTTP Basic, or client_id over mutual TLS with a registered client certificate',
      );
    }
    if (certificate !== undefined && 'problem' in certificate) throw invalidClient(req.basic, certificate.problem);
    const thumbprint = certificate?.x5tS256;
    await this.limits.checkNotLocked(req.clientId, clientAddress);
    const client = byCertificate ? await this.byCertificate(req.clientId, thumbprint!) : await this.participants.authenticate(req.clientId, req.clientSecret!);
    if (!client) {
      await this.limits.recordFailure(req.clientId, clientAddress);
      throw invalidClient(
        req.basic,
        byCertificate ? 'client authentication failed: the client certificate is not registered (unexpired) for this client' : undefined,
      );
    }
    if (!req.audience) throw new OAuthError('invalid_request', 'parameter audience is required');
    const target = this.audienceByAddress.get(strip(req.audience));
    if (!target) throw new OAuthError('invalid_target', `audience ${clientValue(req.audience)} is not an API of this platform`);
    if (!mayRequestAudience(client.participant.role, target.kind)) {
      throw new OAuthError('invalid_target', `a ${client.participant.role} may not request a token for the ${target.kind} API`);
    }
    await this.limits.consumeIssued(client.clientId);
    // Every token issued over mutual TLS is bound to the certificate (RFC 8705 3).
    return this.issuer.issue(client, target.canonical, thumbprint);
  }

  /** The client, when it is not revoked and the certificate is registered, unexpired, for its participant. */
  private async byCertificate(clientId: string, thumbprint: string) {
    const [client, owner] = await Promise.all([this.participants.activeClient(clientId), this.certificates.owner(thumbprint)]);
    return client && owner && owner.participant.id === client.participant.id ? client : null;
  }
}
