import { UnauthorizedException } from '@nestjs/common';
import { extractToken } from './jwt-auth.guard';

const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';

function refusal(header: string | undefined): string {
  try {
    extractToken(header);
  } catch (err) {
    expect(err).toBeInstanceOf(UnauthorizedException);
    const e = err as UnauthorizedException & { headers: Record<string, string> };
    expect(e.getStatus()).toBe(401);
    expect(e.headers['WWW-Authenticate']).toMatch(/^Bearer error="invalid_token", error_description="[^"]+"$/);
    return (e.getResponse() as { message: string }).message;
  }
  throw new Error(`expected ${String(header)} to be refused`);
}

describe('extractToken', () => {
  it('accepts the bare token (the spec form) and Bearer in any case', () => {
    expect(extractToken(jwt)).toBe(jwt);
    expect(extractToken(`Bearer ${jwt}`)).toBe(jwt);
    expect(extractToken(`bearer ${jwt}`)).toBe(jwt);
    expect(extractToken(`  BEARER \t${jwt}  `)).toBe(jwt);
  });

  it('refuses a missing or blank header', () => {
    expect(refusal(undefined)).toContain('missing');
    expect(refusal('   ')).toContain('missing');
  });

  it('refuses anything that is not a compact JWS', () => {
    for (const header of ['Bearer', 'Bearer abc', `Basic ${jwt}`, `${jwt}.extra`, 'a.b', `Bearer ${jwt} trailing`, 'a b.c.d']) {
      expect(refusal(header)).toContain('JWT');
    }
  });

  it('keeps quotes out of the challenge', () => {
    expect(refusal('"x"')).toBeDefined();
  });
});
