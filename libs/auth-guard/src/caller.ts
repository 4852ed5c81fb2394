import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Role } from '@dtp/domain';

/** Who is calling, from the verified access token. */
export interface Caller {
  participantId: string;
  role: Role;
  clientId: string;
  /** Display name of the participant, when the token carries it. */
  name?: string;
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
