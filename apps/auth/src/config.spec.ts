import { ConfigError, loadConfig } from '@dtp/service-kit';
import { AuthConfig } from './config';

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
