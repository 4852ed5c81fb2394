/**
 * The start-up config error names each bad variable and what it held, but never a credential: values of
 * variables named like one (TOKEN, SECRET, PASSWORD, KEY) are `***`, URLs lose their password.
 */
import { IsInt, IsOptional, IsString, IsUrl, Matches, MinLength } from 'class-validator';
import { ConfigError, loadConfig, redactUrlCredentials, showConfigValue } from './config';
import { BaseServiceConfig } from './service';

const pgUrl = { require_tld: false, require_protocol: true, protocols: ['postgres', 'postgresql'] };

class SecretsConfig extends BaseServiceConfig {
  override PORT: number = 3000;

  @IsUrl(pgUrl)
  DATABASE_URL!: string;

  @IsOptional()
  @IsUrl(pgUrl)
  REPLICA_DATABASE_URL?: string;

  @IsOptional()
  @IsString()
  @MinLength(32)
  AUTH_ADMIN_TOKEN?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9+/_-]{43}=?$/, { message: '$property must be 32 bytes in base64, not $value' })
  SIGNING_KEY_ENCRYPTION_KEY?: string;

  @IsOptional()
  @IsInt()
  S3_SECRET_ACCESS_KEY?: number;

  @IsOptional()
  @IsInt()
  KAFKA_SASL_PASSWORD?: number;

  @IsOptional()
  @MinLength(40)
  CLIENT_SECRET?: string;
}

function problems(env: Record<string, string>): string {
  try {
    loadConfig('svc', SecretsConfig, { DATABASE_URL: 'postgres://u:p@db:5432/x', ...env });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('config errors never print secrets', () => {
  it('names every bad credential-like variable but prints *** for its value, also where a message quotes it', () => {
    const secrets = {
      AUTH_ADMIN_TOKEN: 'short-but-real-admin-token',
      SIGNING_KEY_ENCRYPTION_KEY: 'not-base64-but-secret!',
      S3_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI-secret',
      KAFKA_SASL_PASSWORD: 'kafka-pass-123',
      CLIENT_SECRET: 'a-client-secret',
    };
    const message = problems(secrets);
    for (const [name, value] of Object.entries(secrets)) {
      expect([name, message.includes(`${name}: `)]).toEqual([name, true]);
      expect([name, message.includes(value)]).toEqual([name, false]);
    }
    expect(message).toMatch(/AUTH_ADMIN_TOKEN: .* \(got \*\*\*\)/);
    expect(message).toContain('SIGNING_KEY_ENCRYPTION_KEY must be 32 bytes in base64, not ***');
  });

  it('prints a bad database URL with its password replaced by ***', () => {
    const message = problems({
      DATABASE_URL: 'postgres://dtp_auth:hunter2-Secret@db.internal:notaport/dtp_auth',
      REPLICA_DATABASE_URL: 'postgres://ro:p@ss@word@replica:5432/x?sslmode=require&password=other-secret extra',
    });
    expect(message).toContain('DATABASE_URL: ');
    expect(message).toContain('(got "postgres://dtp_auth:***@db.internal:notaport/dtp_auth")');
    expect(message).toContain('REPLICA_DATABASE_URL: ');
    expect(message).not.toMatch(/hunter2|p@ss|word@|other-secret/);
  });

  it('still prints ordinary values, so the error stays useful', () => {
    const message = problems({ PORT: 'abc', LOG_LEVEL: 'loud' });
    expect(message).toContain('(got "abc")');
    expect(message).toContain('(got "loud")');
  });

  it.each([
    ['postgres://u:pw@h:5432/d', 'postgres://u:***@h:5432/d'],
    ['postgresql://u:p%40w@h/d?sslmode=require', 'postgresql://u:***@h/d?sslmode=require'],
    ['postgres://u:p@w@h/d', 'postgres://u:***@h/d'],
    ['postgres://:pw@h/d', 'postgres://:***@h/d'],
    ['postgres://h/d?user=u&password=pw', 'postgres://h/d?user=u&password=***'],
    ['postgres://u@h/d', 'postgres://u@h/d'],
    ['http://auth/.well-known/jwks.json', 'http://auth/.well-known/jwks.json'],
  ])('redactUrlCredentials(%s) = %s', (input, expected) => {
    expect(redactUrlCredentials(input)).toBe(expected);
  });

  it('showConfigValue: *** by name, whatever the value; JSON otherwise', () => {
    for (const name of ['AUTH_ADMIN_TOKEN', 'api_token', 'S3_SECRET_ACCESS_KEY', 'DB_PASSWORD', 'SIGNING_KEY', 'S3_ACCESS_KEY_ID']) {
      expect([name, showConfigValue(name, 'x-value')]).toEqual([name, '***']);
    }
    expect(showConfigValue('PORT', 70000)).toBe('70000');
    expect(showConfigValue('LOG_LEVEL', 'loud')).toBe('"loud"');
  });
});
