import { ConfigError, loadConfig } from '@dtp/service-kit';
import { TokenCheckingConfig } from './config';

describe('TokenCheckingConfig', () => {
  const env = { PORT: '0', AUTH_ISSUER: 'http://auth.test' };

  it("TOKEN_TTL_SECONDS defaults to auth's 3600 and reaches the verifier options", () => {
    const config = loadConfig('svc', TokenCheckingConfig, env);
    expect(config.TOKEN_TTL_SECONDS).toBe(3600);
    expect(config.tokenVerifierOptions('http://platform.test')).toEqual({
      issuer: 'http://auth.test',
      audience: 'http://platform.test',
      jwksUrl: 'http://auth.test/.well-known/jwks.json',
      tokenTtlSeconds: 3600,
    });
    expect(loadConfig('svc', TokenCheckingConfig, { ...env, TOKEN_TTL_SECONDS: '900' }).tokenVerifierOptions('a').tokenTtlSeconds).toBe(900);
  });

  it('TOKEN_TTL_SECONDS is bounded as in auth (60 to 86400)', () => {
    for (const bad of ['59', '86401', 'x']) {
      expect(() => loadConfig('svc', TokenCheckingConfig, { ...env, TOKEN_TTL_SECONDS: bad })).toThrow(ConfigError);
      expect(() => loadConfig('svc', TokenCheckingConfig, { ...env, TOKEN_TTL_SECONDS: bad })).toThrow(/TOKEN_TTL_SECONDS/);
    }
  });
});

describe('TokenCheckingConfig: rate limits', () => {
  const env = { PORT: '0', AUTH_ISSUER: 'http://auth.test' };

  it('are off by default (0) with a 60 s window', () => {
    const config = loadConfig('svc', TokenCheckingConfig, env);
    expect([config.RATE_LIMIT_PER_CLIENT, config.RATE_LIMIT_PER_IP, config.RATE_LIMIT_WINDOW_SECONDS]).toEqual([0, 0, 60]);
    const on = loadConfig('svc', TokenCheckingConfig, { ...env, RATE_LIMIT_PER_CLIENT: '600', RATE_LIMIT_PER_IP: '120', RATE_LIMIT_WINDOW_SECONDS: '10' });
    expect([on.RATE_LIMIT_PER_CLIENT, on.RATE_LIMIT_PER_IP, on.RATE_LIMIT_WINDOW_SECONDS]).toEqual([600, 120, 10]);
  });

  it.each([
    ['RATE_LIMIT_PER_CLIENT', '-1'],
    ['RATE_LIMIT_PER_CLIENT', 'lots'],
    ['RATE_LIMIT_PER_IP', '1.5'],
    ['RATE_LIMIT_WINDOW_SECONDS', '0'],
    ['RATE_LIMIT_WINDOW_SECONDS', '3601'],
  ])('%s=%s stops the start, naming the variable', (name, value) => {
    expect(() => loadConfig('svc', TokenCheckingConfig, { ...env, [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig('svc', TokenCheckingConfig, { ...env, [name]: value })).toThrow(new RegExp(name));
  });
});
