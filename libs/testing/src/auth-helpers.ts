import { Controller, Get, Module } from '@nestjs/common';
import pino from 'pino';
import { AudienceKind, ROLE_AUDIENCE_KIND, Role } from '@dtp/domain';
import { AuthGuardModule, Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import { createHttpApp, newServiceContext, Public } from '@dtp/service-kit';
import { TEST_ADMIN_TOKEN, TEST_AUDIENCES, TEST_ISSUER, TestStack } from './stack';

/** A participant's credential as onboarding returns it (plus the name used). */
export interface ParticipantCredentials {
  participant_id: string;
  client_id: string;
  client_secret: string;
  role: Role;
  name: string;
}

export interface ParticipantWithToken extends ParticipantCredentials {
  token: string;
  /** Headers to spread into a fetch call: the spec's `Authorization: <token>` form. */
  auth: { authorization: string };
}

export interface OnboardOptions {
  name?: string;
  provenance?: { name: string; type: string; country_code?: string | null } | null;
  /** When its integration started (default: now); before 2023-06-30 it may use mutual TLS. */
  integration_started_at?: string;
}

let counter = 0;

function authUrl(stack: Pick<TestStack, 'urls'>): string {
  const url = stack.urls.auth;
  if (!url) throw new Error('the test stack has no auth service: start it with services: ["auth", ...]');
  return url;
}

async function expectJson(res: Response, status: number, what: string): Promise<unknown> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status}: ${text}`);
  return JSON.parse(text) as unknown;
}

/** Onboards a participant through the real admin API of the stack's auth service. */
export async function onboard(stack: Pick<TestStack, 'urls'>, role: Role, opts: OnboardOptions = {}): Promise<ParticipantCredentials> {
  counter += 1;
  const name = opts.name ?? `Test ${role} ${process.pid}-${counter}`;
  const body: Record<string, unknown> = { name, role };
  if (opts.provenance !== undefined) body.provenance = opts.provenance;
  else if (role === 'producer') body.provenance = { name: 'Test mine', type: 'mine', country_code: 'BW' };
  if (opts.integration_started_at !== undefined) body.integration_started_at = opts.integration_started_at;
  const res = await fetch(`${authUrl(stack)}/admin/participants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const created = (await expectJson(res, 201, 'onboarding')) as Omit<ParticipantCredentials, 'name'>;
  return { ...created, name };
}

/** Gets an access token for one of the test audiences through the real token endpoint. */
export async function tokenFor(
  stack: Pick<TestStack, 'urls'>,
  creds: Pick<ParticipantCredentials, 'client_id' | 'client_secret'>,
  audienceKind: AudienceKind,
): Promise<string> {
  const res = await fetch(`${authUrl(stack)}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: creds.client_id,
      client_secret: creds.client_secret,
      audience: TEST_AUDIENCES[audienceKind],
    }),
  });
  const body = (await expectJson(res, 200, 'token request')) as { access_token: string };
  return body.access_token;
}

/** Onboards a participant and gets it a token (for its role's API unless another audience is named). */
export async function participantWithToken(
  stack: Pick<TestStack, 'urls'>,
  role: Role,
  audienceKind: AudienceKind = ROLE_AUDIENCE_KIND[role],
  opts: OnboardOptions = {},
): Promise<ParticipantWithToken> {
  const creds = await onboard(stack, role, opts);
  const token = await tokenFor(stack, creds, audienceKind);
  return { ...creds, token, auth: { authorization: token } };
}

@Controller('probe')
class ProbeController {
  @Public()
  @Get('open')
  open() {
    return { ok: true };
  }

  @Get('any')
  any(@CurrentCaller() caller: Caller) {
    return caller;
  }

  @Roles('producer', 'manufacturer')
  @Get('makers')
  makers(@CurrentCaller() caller: Caller) {
    return caller;
  }
}

export interface GuardedApp {
  url: string;
  close(): Promise<void>;
}

/**
 * A tiny service guarded by @dtp/auth-guard, for tests and benchmarks of tokens: `GET /probe/open` (@Public),
 * `GET /probe/any` (any valid token; answers the Caller), `GET /probe/makers` (@Roles producer, manufacturer).
 */
export async function startGuardedApp(opts: { authUrl: string; audience: string; issuer?: string }): Promise<GuardedApp> {
  @Module({
    imports: [
      AuthGuardModule.forRoot({
        issuer: opts.issuer ?? TEST_ISSUER,
        audience: opts.audience,
        jwksUrl: `${opts.authUrl}/.well-known/jwks.json`,
      }),
    ],
    controllers: [ProbeController],
  })
  class ProbeModule {}

  const ctx = newServiceContext('probe', pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }));
  const app = await createHttpApp({ ctx, module: ProbeModule, docs: { title: 'probe', description: 'guard probe', version: '0' } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
}
