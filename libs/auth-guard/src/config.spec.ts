import { ConfigError, loadConfig } from '@dtp/service-kit';
import { TokenCheckingConfig } from './config';

describe('TokenCheckingConfig', () => {
  const env = { PORT: '0', AUTH_ISSUER: 'http://auth.test' };

  it('TOKEN_TTL_SECONDS defaults to auth\'s 3600 and reaches the verifier options', () => {
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
