import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ValidateBy } from 'class-validator';

/**
 * At-rest protection of a secret kept in a service's database (auth's private signing keys, platform's webhook
 * signing secrets): with an encryption key set, a value is stored as `enc:v1:<iv>:<tag>:<ciphertext>` (AES-256-GCM,
 * base64url parts, the row's id as additional data so a value cannot be moved to another row). Without one, or for a
 * value written before one was set, the text is stored and read as it is.
 */
export class AtRestCipher {
  private readonly key?: Buffer;

  /**
   * @param encryptionKey 32 bytes in base64 or base64url (unset: values are stored as they are)
   * @param variable the environment variable the key comes from, named in errors
   * @param what what a value is, named in errors with its id ("signing key", "webhook secret")
   */
  constructor(
    encryptionKey: string | undefined,
    private readonly variable: string,
    private readonly what: string,
  ) {
    if (encryptionKey) {
      const key = Buffer.from(encryptionKey.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
      if (key.length !== 32) throw new Error(`${variable} must decode to 32 bytes`);
      this.key = key;
    }
  }

  get encrypts(): boolean {
    return this.key !== undefined;
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

  /** The stored value's text; throws, naming the value, when it is encrypted and cannot be opened with this key. */
  open(id: string, stored: string): string {
    if (!AtRestCipher.isSealed(stored)) return stored;
    if (!this.key) throw new Error(`${this.what} ${id} is encrypted but ${this.variable} is not set`);
    const [, version, iv, tag, ct] = stored.split(':');
    if (version !== 'v1') throw new Error(`${this.what} ${id}: unknown encryption version ${version}`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(id));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new Error(`${this.what} ${id} does not open with this ${this.variable} (another key, or the stored value was changed)`);
    }
  }
}

/** An AtRestCipher key in a config variable: 32 bytes in base64 or base64url (43-44 characters). */
export const AT_REST_KEY_PATTERN = /^[A-Za-z0-9+/_-]{43}=?$/;

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
