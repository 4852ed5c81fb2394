import { ConfigError, loadConfig } from '@dtp/service-kit';
import { randomBytes } from 'node:crypto';
import { AuthConfig, DEV_ADMIN_TOKEN, PUBLISHED_ADMIN_TOKENS } from './config';

const BASE = { PORT: '0', DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/auth', AUTH_ADMIN_TOKEN: 'a-test-admin-token-of-enough-length-0123' };

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig('auth', AuthConfig, { ...BASE, ...env });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  return [];
}

describe('AuthConfig', () => {
  describe('TRUSTED_PROXIES', () => {
    it('defaults to none', () => {
      const config = loadConfig('auth', AuthConfig, BASE);
      expect(config.TRUSTED_PROXIES).toBe('');
      expect(config.trustedProxies().entries).toEqual([]);
    });

    it('takes IPs, CIDRs and named ranges', () => {
      const config = loadConfig('auth', AuthConfig, { ...BASE, TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.1, ::1, fd00::/8, loopback' });
      expect(config.trustedProxies().trusts('10.9.9.9')).toBe(true);
      expect(config.trustedProxies().trusts('192.0.2.2')).toBe(false);
    });

    it('refuses anything else, naming the variable and the entry', () => {
      for (const bad of ['10.0.0.0/33', 'proxy.internal', '*', '10.0.0.1, nope']) {
        const found = problems({ TRUSTED_PROXIES: bad });
        expect(found).toHaveLength(1);
        expect(found[0]).toMatch(/^TRUSTED_PROXIES: /);
      }
    });
  });

  it('TOKEN_FAILURE_LIMIT defaults to 10 and must be a positive integer', () => {
    expect(loadConfig('auth', AuthConfig, BASE).TOKEN_FAILURE_LIMIT).toBe(10);
    expect(problems({ TOKEN_FAILURE_LIMIT: '0' })[0]).toMatch(/^TOKEN_FAILURE_LIMIT: /);
  });
});

describe('AUTH_ADMIN_TOKEN in production and live', () => {
  // The signing keys' encryption is required there too (tested below): given here, so only the token is judged.
  const env = { PORT: '0', DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/auth', SIGNING_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
  const strong = 'x7Kp2mQ9vR4tW8yZ1aB5cD3eF6gH0jL2'; // 32 characters
  const attempt = (vars: Record<string, string>): string[] => {
    try {
      loadConfig('auth', AuthConfig, { ...env, ...vars });
      return [];
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as ConfigError).problems;
    }
  };

  it.each([
    ['NODE_ENV=production', { NODE_ENV: 'production' }],
    ['DTP_ENV=live', { DTP_ENV: 'live' }],
    ['both', { NODE_ENV: 'production', DTP_ENV: 'live' }],
  ])('%s: the dev value and tokens shorter than 32 characters are refused, naming the variable', (_name, switches) => {
    for (const token of ['dev-admin-token', 'a'.repeat(31), 'deploy-checks-admin-token']) {
      const problems = attempt({ ...switches, AUTH_ADMIN_TOKEN: token });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain('AUTH_ADMIN_TOKEN must be at least 32');
      // the error describes the token, never prints it
      expect(problems[0]).not.toContain(`"${token}"`);
      expect(problems[0]).toMatch(token === 'dev-admin-token' ? /got "the dev value dev-admin-token"/ : new RegExp(`got "${token.length} characters"`));
    }
    const config = loadConfig('auth', AuthConfig, { ...env, ...switches, AUTH_ADMIN_TOKEN: strong });
    expect(config.AUTH_ADMIN_TOKEN).toBe(strong);
    expect(config.live).toBe(true);
  });

  it.each(PUBLISHED_ADMIN_TOKENS.map((t) => [t]))('%s, published in the repository, is refused whatever its length', (token) => {
    for (const switches of [{ NODE_ENV: 'production' }, { DTP_ENV: 'live' }] as Record<string, string>[]) {
      const found = attempt({ ...switches, AUTH_ADMIN_TOKEN: token });
      expect(found).toHaveLength(1);
      expect(found[0]).toContain('nor any example published in the repository');
      // The error describes the token, never prints it (the dev value excepted: it is named as such).
      if (token !== DEV_ADMIN_TOKEN) expect(found[0]).not.toContain(token);
    }
    // Development and tests still take them (npm start documents the dev value).
    if (token.length >= 12) expect(loadConfig('auth', AuthConfig, { ...env, AUTH_ADMIN_TOKEN: token }).AUTH_ADMIN_TOKEN).toBe(token);
  });

  it('the message of ConfigError (what a refused start prints) names AUTH_ADMIN_TOKEN', () => {
    expect(() => loadConfig('auth', AuthConfig, { ...env, NODE_ENV: 'production', AUTH_ADMIN_TOKEN: 'dev-admin-token' })).toThrow(
      /AUTH_ADMIN_TOKEN must be at least 32 random characters and not the dev value/,
    );
  });

  it('elsewhere (development, test, sandbox) the dev value and 12+ characters are accepted', () => {
    for (const switches of [{}, { NODE_ENV: 'development' }, { NODE_ENV: 'test' }, { DTP_ENV: 'sandbox' }]) {
      const config = loadConfig('auth', AuthConfig, { ...env, ...switches, AUTH_ADMIN_TOKEN: 'dev-admin-token' });
      expect(config.live).toBe(false);
      expect(config.AUTH_ADMIN_TOKEN).toBe('dev-admin-token');
    }
    expect(attempt({ AUTH_ADMIN_TOKEN: 'short' })[0]).toMatch(/^AUTH_ADMIN_TOKEN: /);
  });
});

describe('SIGNING_KEY_ENCRYPTION_KEY in production and live', () => {
  const env = { PORT: '0', DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/auth', AUTH_ADMIN_TOKEN: randomBytes(24).toString('base64url') };
  const attempt = (vars: Record<string, string>): string[] => {
    try {
      loadConfig('auth', AuthConfig, { ...env, ...vars });
      return [];
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as ConfigError).problems;
    }
  };

  it.each([[{ NODE_ENV: 'production' }], [{ DTP_ENV: 'live' }]])('%o: required, or the explicit opt-out SIGNING_KEYS_UNENCRYPTED=true', (switches) => {
    const missing = attempt(switches);
    expect(missing).toHaveLength(1);
    expect(missing[0]).toMatch(/SIGNING_KEY_ENCRYPTION_KEY is required when NODE_ENV=production or DTP_ENV=live/);
    expect(missing[0]).toContain('SIGNING_KEYS_UNENCRYPTED=true');
    expect(attempt({ ...switches, SIGNING_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') })).toEqual([]);
    const optedOut = loadConfig('auth', AuthConfig, { ...env, ...switches, SIGNING_KEYS_UNENCRYPTED: 'true' });
    expect(optedOut.SIGNING_KEY_ENCRYPTION_KEY).toBeUndefined();
    expect(optedOut.SIGNING_KEYS_UNENCRYPTED).toBe('true');
    // Only `true` opts out.
    expect(attempt({ ...switches, SIGNING_KEYS_UNENCRYPTED: 'false' })[0]).toMatch(/SIGNING_KEY_ENCRYPTION_KEY is required/);
    expect(attempt({ ...switches, SIGNING_KEYS_UNENCRYPTED: 'yes' }).some((p) => p.startsWith('SIGNING_KEYS_UNENCRYPTED: '))).toBe(true);
  });

  it('is optional elsewhere (npm start, tests, sandbox)', () => {
    for (const switches of [{}, { NODE_ENV: 'development' }, { DTP_ENV: 'sandbox' }] as Record<string, string>[]) expect(attempt(switches)).toEqual([]);
  });

  it('SIGNING_KEY_ENCRYPTION_KEY_PREVIOUS (changing the key): keys like it, comma-separated, only with it, never printed', () => {
    const k = () => randomBytes(32).toString('base64');
    expect(attempt({ SIGNING_KEY_ENCRYPTION_KEY: k(), SIGNING_KEY_ENCRYPTION_KEY_PREVIOUS: `${k()},${k()}` })).toEqual([]);
    const alone = attempt({ SIGNING_KEY_ENCRYPTION_KEY_PREVIOUS: k() });
    expect(alone).toHaveLength(1);
    expect(alone[0]).toMatch(/^SIGNING_KEY_ENCRYPTION_KEY_PREVIOUS: .*needs SIGNING_KEY_ENCRYPTION_KEY: the new key/);
    const bad = attempt({ SIGNING_KEY_ENCRYPTION_KEY: k(), SIGNING_KEY_ENCRYPTION_KEY_PREVIOUS: 'not-a-key' });
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatch(/^SIGNING_KEY_ENCRYPTION_KEY_PREVIOUS: .*comma-separated/);
    expect(bad[0]).not.toContain('not-a-key');
  });
});

describe('SIGNING_KEY_ROTATION_DAYS', () => {
  it('is unset by default (no scheduled rotation)', () => {
    expect(loadConfig('auth', AuthConfig, BASE).SIGNING_KEY_ROTATION_DAYS).toBeUndefined();
  });

  it('takes whole days from 1 to 365', () => {
    expect(loadConfig('auth', AuthConfig, { ...BASE, SIGNING_KEY_ROTATION_DAYS: '30' }).SIGNING_KEY_ROTATION_DAYS).toBe(30);
    for (const bad of ['0', '366', '1.5', 'monthly', '-1']) {
      expect(problems({ SIGNING_KEY_ROTATION_DAYS: bad })[0]).toMatch(/^SIGNING_KEY_ROTATION_DAYS: /);
    }
  });
});
