import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AuthConfig } from '../config';
import { AUTH_CONFIG } from '../tokens';
import { PrivateKeyCodec } from './key-crypto';
import { SigningKeyEntity } from './signing-key.entity';
import { SigningKeys } from './signing-keys';
import { SigningKeysRepository } from './signing-keys.repository';

/** The token signing keys (`signing_keys`): the active key, the JWKS, rotation. Used by the service and the CLI. */
@Module({
  imports: [TypeOrmModule.forFeature([SigningKeyEntity])],
  providers: [
    SigningKeysRepository,
    {
      provide: PrivateKeyCodec,
      inject: [AUTH_CONFIG],
      useFactory: (config: AuthConfig) => new PrivateKeyCodec(config.SIGNING_KEY_ENCRYPTION_KEY, config.SIGNING_KEY_ENCRYPTION_KEY_PREVIOUS),
    },
    SigningKeys,
  ],
  exports: [SigningKeys],
})
export class KeysModule {}
