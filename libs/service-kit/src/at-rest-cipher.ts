import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { IsOptional, Matches, ValidateBy } from 'class-validator';

/**
 * At-rest protection of a secret kept in a service's database (auth's private signing keys, platform's webhook
 * signing secrets): with an encryption key set, a value is stored as `enc:v1:<iv>:<tag>:<ciphertext>` (AES-256-GCM,
 * base64url parts, the row's id as additional data so a value cannot be moved to another row). Without one, or for a
 * value written before one was set, the text is stored and read as it is.
 *
 * Changing the key: `<VARIABLE>_PREVIOUS` holds more keys (comma-separated), first the new one (every replica can
 * open what will be sealed with it), then the old one once the new key is in `<VARIABLE>`. Values open with any of
 * them (GCM's tag tells which key sealed a value, so the stored form needs no key id and a version from before this
 * one still reads what this one writes); `reseal` gives a value sealed with the current key, which a service does at
 * start for what it keeps, after which the previous keys can go.
 */
export class AtRestCipher {
  private readonly key?: Buffer;
  private readonly previous: Buffer[];

  /**
   * @param encryptionKey 32 bytes in base64 or base64url (unset: values are stored as they are)
   * @param variable the environment variable the key comes from, named in errors
   * @param what what a value is, named in errors with its id ("signing key", "webhook secret")
   * @param previousKeys keys values may still be sealed with (`<variable>_PREVIOUS`: comma-separated), read only
   */
  constructor(
    encryptionKey: string | undefined,
    private readonly variable: string,
    private readonly what: string,
    previousKeys?: string,
  ) {
    const decode = (text: string, name: string) => {
      const key = Buffer.from(text.trim().replace(/-/g, '+').replace(/_/g, '/'), 'base64');
      if (key.length !== 32) throw new Error(`${name} must decode to 32 bytes`);
      return key;
    };
    if (encryptionKey) this.key = decode(encryptionKey, variable);
    this.previous = (previousKeys ?? '')
      .split(',')
      .filter((k) => k.trim() !== '')
      .map((k) => decode(k, `${variable}_PREVIOUS`));
    if (this.previous.length > 0 && !this.key) throw new Error(`${variable}_PREVIOUS needs ${variable} (the key values are sealed with from now on)`);
  }

  get encrypts(): boolean {
    return this.key !== undefined;
  }

  /** True while previous keys are configured: values sealed with them are still read, and should be resealed. */
  get rotating(): boolean {
    return this.previous.length > 0;
  }

  /** How every value `seal` encrypted begins (a query that tells the two forms apart uses it too). */
  static readonly SEALED_PREFIX = 'enc:';

  /** True for a value `seal` encrypted (whatever key it was encrypted with). */
  static isSealed(stored: string): boolean {
    return stored.startsWith(AtRestCipher.SEALED_PREFIX);
  }

  seal(id: string, plain: string): string {
    if (!this.key) return plain;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(id));
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return AtRestCipher.SEALED_PREFIX + ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join(':');
  }

  /**
   * The stored value's text, opened with the current key or a previous one; throws, naming the value (never
   * printing it), when it is encrypted and no configured key opens it.
   */
  open(id: string, stored: string): string {
    if (!AtRestCipher.isSealed(stored)) return stored;
    if (!this.key) throw new Error(`${this.what} ${id} is encrypted but ${this.variable} is not set`);
    for (const key of [this.key, ...this.previous]) {
      const text = this.openWith(key, id, stored);
      if (text !== undefined) return text;
    }
    const keys = this.rotating ? `${this.variable} nor ${this.variable}_PREVIOUS` : `this ${this.variable}`;
    throw new Error(`${this.what} ${id} does not open with ${keys} (another key, or the stored value was changed)`);
  }

  /**
   * What to store for a value that may be stored already: sealed with the current key (plain text, or a value
   * sealed with a previous key), or as it is when it already is (or no key is set). Throws as `open` does.
   */
  reseal(id: string, stored: string): string {
    if (!this.key) return stored;
    if (!AtRestCipher.isSealed(stored)) return this.seal(id, stored);
    if (this.openWith(this.key, id, stored) !== undefined) return stored;
    return this.seal(id, this.open(id, stored));
  }

  /** The text, or undefined when `key` did not seal this value for `id` (or it was changed). */
  private openWith(key: Buffer, id: string, stored: string): string | undefined {
    const [, version, iv, tag, ct] = stored.split(':');
    if (version !== 'v1') throw new Error(`${this.what} ${id}: unknown encryption version ${version}`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(id));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

/** An AtRestCipher key in a config variable: 32 bytes in base64 or base64url (43-44 characters). */
export const AT_REST_KEY_PATTERN = /^[A-Za-z0-9+/_-]{43}=?$/;

/** `<VARIABLE>_PREVIOUS`: one or more such keys, comma-separated. */
export const AT_REST_KEY_LIST_PATTERN = /^[A-Za-z0-9+/_-]{43}=?(,[A-Za-z0-9+/_-]{43}=?)*$/;

/** What a config says of its at-rest encryption (a validation-only getter's value: never the key itself). */
export function atRestEncryptionState(key: string | undefined, optOut: string | undefined): string {
  return key ? 'set' : optOut === 'true' ? 'off on purpose' : 'not set';
}

/**
 * On a validation-only getter of a config class with a `live` getter: in production and live (`live` true) the
 * variable `keyVariable` must be set, unless `optOutVariable` is `true` (an explicit choice to store `what` as
 * plain text). The start-up error names both variables and how to make a key.
 */
export function AtRestKeyRequiredWhenLive(keyVariable: string, optOutVariable: string, what: string): PropertyDecorator {
  return ValidateBy({
    name: `atRestKey:${keyVariable}`,
    validator: {
      validate: (_value: unknown, args) => {
        const config = args?.object as Record<string, unknown> & { live?: boolean };
        return !config?.live || !!config[keyVariable] || config[optOutVariable] === 'true';
      },
      defaultMessage: () =>
        `${keyVariable} is required when NODE_ENV=production or DTP_ENV=live (32 random bytes in base64, e.g. \`openssl rand -base64 32\`); set ${optOutVariable}=true to store ${what} as plain text on purpose`,
    },
  });
}

/**
 * On a config class's `<keyVariable>_PREVIOUS` (AtRestCipher's previous keys): optional; when set, one or more keys
 * like `keyVariable`'s, comma-separated, and only with `keyVariable` set (the key values are resealed with).
 */
export function AtRestPreviousKeys(keyVariable: string): PropertyDecorator {
  const variable = `${keyVariable}_PREVIOUS`;
  const rules = [
    IsOptional(),
    Matches(AT_REST_KEY_LIST_PATTERN, { message: `${variable} must be one or more keys of 32 bytes in base64, comma-separated` }),
    ValidateBy({
      name: `atRestPreviousKeys:${keyVariable}`,
      validator: {
        validate: (_value: unknown, args) => !!(args?.object as Record<string, unknown> | undefined)?.[keyVariable],
        defaultMessage: () => `${variable} needs ${keyVariable}: the new key, which values are resealed with (docs/kubernetes.md "Changing an encryption key")`,
      },
    }),
  ];
  return (target, property) => {
    for (const rule of rules) rule(target, property);
  };
}
