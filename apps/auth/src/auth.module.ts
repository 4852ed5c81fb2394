import { DynamicModule, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { AdminController } from './admin/admin.controller';
import { AdminTokenGuard } from './admin/admin-token.guard';
import { AuthConfig } from './config';
import { PrivateKeyCodec } from './keys/key-crypto';
import { SigningKeys } from './keys/signing-keys';
import { ParticipantsRepository } from './participants/participants.repository';
import { ParticipantsService } from './participants/participants.service';
import { TrustedProxies } from './token/client-address';
import { TokenController } from './token/token.controller';
import { TokenIssuer } from './token/token-issuer';
import { TokenRateLimits } from './token/token-rate-limits';
import { TokenService } from './token/token.service';
import { AUTH_CONFIG } from './tokens';

export { AUTH_CONFIG };

/** The parts of the auth service, built without Nest so the CLI uses exactly the same code. */
export interface AuthCore {
  keys: SigningKeys;
  participants: ParticipantsService;
}

export function buildAuthCore(config: AuthConfig, ds: DataSource, logger?: Logger): AuthCore {
  const keys = new SigningKeys(
    ds,
    new PrivateKeyCodec(config.SIGNING_KEY_ENCRYPTION_KEY),
    { tokenTtlSeconds: config.TOKEN_TTL_SECONDS, cacheSeconds: config.SIGNING_KEY_CACHE_SECONDS },
    logger,
  );
  const participants = new ParticipantsService(new ParticipantsRepository(ds), { logN: config.SCRYPT_LOG_N, r: 8, p: 1 }, logger);
  return { keys, participants };
}

@Module({})
export class AuthModule {
  static forRoot(config: AuthConfig, ds: DataSource, core: AuthCore): DynamicModule {
    const limits = new TokenRateLimits({
      perIp: config.TOKEN_RATE_LIMIT_PER_IP,
      issuedPerClient: config.TOKEN_RATE_LIMIT_PER_CLIENT,
      failuresPerClientAddress: config.TOKEN_FAILURE_LIMIT,
    });
    const issuer = new TokenIssuer(core.keys, config.AUTH_ISSUER, config.TOKEN_TTL_SECONDS);
    return {
      module: AuthModule,
      global: true,
      controllers: [TokenController, AdminController],
      providers: [
        { provide: AUTH_CONFIG, useValue: config },
        { provide: DataSource, useValue: ds },
        { provide: SigningKeys, useValue: core.keys },
        { provide: ParticipantsService, useValue: core.participants },
        { provide: TokenService, useValue: new TokenService(core.participants, issuer, limits, config.audiences()) },
        { provide: TrustedProxies, useValue: config.trustedProxies() },
        AdminTokenGuard,
      ],
      exports: [AUTH_CONFIG, DataSource],
    };
  }
}
