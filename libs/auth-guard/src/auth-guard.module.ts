import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { RevocationEventsController } from './revocation-events.controller';
import { JwtAuthGuard } from './jwt-auth.guard';
import { TokenVerifier, TokenVerifierOptions } from './token-verifier';

/** Import once in a service's root module: installs the JWT guard on every route. */
@Module({})
export class AuthGuardModule {
  static forRoot(opts: TokenVerifierOptions): DynamicModule {
    return {
      module: AuthGuardModule,
      // The deny-list's consumer: an @EventPattern handler, run where the app connects its EventsServer.
      controllers: [RevocationEventsController],
      providers: [
        { provide: TokenVerifier, useValue: new TokenVerifier(opts) },
        { provide: APP_GUARD, useClass: JwtAuthGuard },
      ],
      exports: [TokenVerifier],
    };
  }
}
