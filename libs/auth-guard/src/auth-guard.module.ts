import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthModuleOptions } from '@nestjs/passport';
import { JwtAuthGuard } from './jwt-auth.guard';
import { JwtStrategy } from './jwt.strategy';
import { RevocationEventsController } from './revocation-events.controller';
import { TOKEN_VERIFIER_OPTIONS, TokenVerifier, TokenVerifierOptions } from './token-verifier';

/**
 * Import once in a service's root module: installs the JWT guard on every route. Provides the TokenVerifier
 * (its deny-list is fed by RevocationEventsController, this module's `client.revoked` event handler), this app's passport-jwt
 * strategy, passport's options for the guard (the strategy's own name; the caller goes to `req.caller`) and the
 * guard as APP_GUARD.
 */
@Module({})
export class AuthGuardModule {
  static forRoot(opts: TokenVerifierOptions): DynamicModule {
    return {
      module: AuthGuardModule,
      // The deny-list's consumer: an @EventPattern handler, run where the app connects its EventsServer.
      controllers: [RevocationEventsController],
      providers: [
        { provide: TOKEN_VERIFIER_OPTIONS, useValue: opts },
        TokenVerifier,
        JwtStrategy,
        {
          provide: AuthModuleOptions,
          useFactory: (strategy: JwtStrategy): AuthModuleOptions => ({ defaultStrategy: strategy.name, property: 'caller', session: false }),
          inject: [JwtStrategy],
        },
        JwtAuthGuard,
        { provide: APP_GUARD, useExisting: JwtAuthGuard },
      ],
      exports: [TokenVerifier],
    };
  }
}
