import 'reflect-metadata'; // implicit conversion reads design:type, with or without Nest loaded
import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';

/** Thrown at start-up when the environment does not satisfy a service's config class. */
export class ConfigError extends Error {
  constructor(
    readonly service: string,
    readonly problems: string[],
  ) {
    super(`${service}: invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** Variables whose values are never printed: their names say they hold a credential. */
const SECRET_NAME = /TOKEN|SECRET|PASSWORD|PASSWD|KEY|CREDENTIAL/i;
const REDACTED = '***';

/**
 * `value` with the credentials of a URL replaced by `***`: the password of `scheme://user:password@host...`
 * (up to the last `@`, so an unencoded `@` in the password is covered too, and whether or not the URL is
 * otherwise valid) and `password=` / `sslpassword=` query parameters (libpq accepts both).
 */
export function redactUrlCredentials(value: string): string {
  return value
    .replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*:)(.*)@(?=[^@]*$)/i, `$1${REDACTED}@`)
    .replace(/([?&](?:ssl)?pass(?:word)?=)[^&#]*/gi, `$1${REDACTED}`);
}

/**
 * How a bad config value is shown in the start-up error: `***` for a variable named like a credential (TOKEN,
 * SECRET, PASSWORD, KEY...), a URL without its password, anything else as JSON.
 */
export function showConfigValue(name: string, value: unknown): string {
  if (SECRET_NAME.test(name)) return REDACTED;
  return JSON.stringify(typeof value === 'string' ? redactUrlCredentials(value) : value) ?? String(value);
}

/** `message` with any occurrence of the secret parts of `value` replaced (a validator message may quote the value). */
function scrubMessage(message: string, name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') return message;
  if (SECRET_NAME.test(name)) return message.split(value).join(REDACTED);
  const redacted = redactUrlCredentials(value);
  return redacted === value ? message : message.split(value).join(redacted);
}

/**
 * One line per failed constraint. The value shown is the one given in the environment (before conversion),
 * redacted; a value no variable gave (a computed check such as auth's AUTH_ADMIN_TOKEN_STRENGTH, which describes
 * the token without quoting it) is shown as computed, URLs still without their password.
 */
function flatten(errors: ValidationError[], raw: Record<string, string>, prefix = ''): string[] {
  return errors.flatMap((e) => {
    const name = `${prefix}${e.property}`;
    const given = prefix === '' && Object.hasOwn(raw, e.property);
    const value = given ? raw[e.property] : e.value;
    const shownName = given ? name : '';
    const own = Object.values(e.constraints ?? {}).map((m) => `${name}: ${scrubMessage(m, shownName, value)} (got ${showConfigValue(shownName, value)})`);
    return [...own, ...flatten(e.children ?? [], {}, `${name}.`)];
  });
}

/**
 * Reads a service's config from an env-like map: class-validator decorators on `cls` declare each variable,
 * class-transformer converts strings (numbers, booleans). Unknown variables are ignored. Any failure throws a
 * ConfigError whose message names every bad variable and what it held, credentials redacted (showConfigValue).
 */
export function loadConfig<T extends object>(service: string, cls: new () => T, env: Record<string, string | undefined>): T {
  const cleaned: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') cleaned[k] = v;
  const instance = plainToInstance(cls, cleaned, { enableImplicitConversion: true, exposeDefaultValues: true });
  const errors = validateSync(instance, { whitelist: false, forbidUnknownValues: false });
  if (errors.length > 0) throw new ConfigError(service, flatten(errors, cleaned));
  return instance;
}
