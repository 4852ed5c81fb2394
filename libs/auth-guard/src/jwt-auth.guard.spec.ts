import { UnauthenticatedError } from '@dtp/domain';
import { DOMAIN_ERROR_STATUS } from '@dtp/service-kit';
import { extractToken } from './jwt-auth.guard';

const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';

function refusal(header: string | undefined): string {
  try {
    extractToken(header);
  } catch (err) {
    expect(err).toBeInstanceOf(UnauthenticatedError);
    const e = err as UnauthenticatedError;
    expect(DOMAIN_ERROR_STATUS[e.kind]).toBe(401);
    expect(e.challenge).toMatch(/^Bearer error="invalid_token", error_description="[^"]+"$/);
    expect(Object.keys(e.body).sort()).toEqual(['error', 'message']);
    expect(e.body.error).toBe('invalid_token');
    return e.body.message as string;
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
