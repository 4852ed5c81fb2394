import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Role } from '@dtp/domain';

/** Who is calling, from the verified access token. */
export interface Caller {
  participantId: string;
  role: Role;
  clientId: string;
  /** Display name of the participant, when the token carries it. */
  name?: string;
  /**
   * The client certificate (RFC 8705 `x5t#S256`) the caller is tied to: the token's `cnf` (a certificate-bound
   * token, accepted only on requests made with that certificate), or the certificate of a legacy mTLS call.
   */
  certificateThumbprint?: string;
  /** How the caller authenticated: an access token (the default) or a registered client certificate alone (legacy mTLS). */
  via?: 'token' | 'mtls';
}

export const ROLES_KEY = 'dtp:roles';
/** Roles allowed to call a route (403 for any other). Without it, any authenticated role may call. */
export const Roles = (...roles: Role[]) => SetMetadata(ROLES_KEY, roles);

/** Injects the verified caller into a handler parameter. */
export const CurrentCaller = createParamDecorator((_: unknown, ctx: ExecutionContext): Caller => {
  const req = ctx.switchToHttp().getRequest<{ caller?: Caller }>();
  if (!req.caller) throw new Error('CurrentCaller used on a public route');
  return req.caller;
});
