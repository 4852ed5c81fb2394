import { Module } from '@nestjs/common';
import type { AuthConfig } from '../config';
import { ClientCertificatesModule } from '../certificates/client-certificates.module';
import { KeysModule } from '../keys/keys.module';
import { ParticipantsModule } from '../participants/participants.module';
import { AUTH_CONFIG } from '../tokens';
import { TrustedProxies } from '@dtp/service-kit';
import { TokenController } from './token.controller';
import { TokenIssuer } from './token-issuer';
import { TokenRateLimits } from './token-rate-limits';
import { TokenService } from './token.service';

/** The token endpoint (RFC 6749 4.4 client credentials) and the JWKS. */
@Module({
  imports: [ParticipantsModule, KeysModule, ClientCertificatesModule],
  controllers: [TokenController],
  providers: [
    TokenService,
    TokenIssuer,
    TokenRateLimits,
    { provide: TrustedProxies, inject: [AUTH_CONFIG], useFactory: (config: AuthConfig) => config.trustedProxies() },
  ],
})
export class TokenModule {}
