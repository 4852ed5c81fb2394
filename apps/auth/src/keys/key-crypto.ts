import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';

/**
 * At-rest protection of private signing keys: with SIGNING_KEY_ENCRYPTION_KEY set, the private JWK is stored as
 * `enc:v1:<iv>:<tag>:<ciphertext>` (AES-256-GCM, base64url parts, the key id as additional data so a row cannot
 * be swapped for another's). Without it the JWK is stored as JSON text.
 */
export class PrivateKeyCodec {
  private readonly key?: Buffer;

  constructor(encryptionKey?: string) {
    if (encryptionKey) {
      const key = Buffer.from(encryptionKey.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
      if (key.length !== 32) throw new Error('SIGNING_KEY_ENCRYPTION_KEY must decode to 32 bytes');
      this.key = key;
    }
  }

  get encrypts(): boolean {
    return this.key !== undefined;
  }

  seal(kid: string, jwkJson: string): string {
    if (!this.key) return jwkJson;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(kid));
    const ct = Buffer.concat([cipher.update(jwkJson, 'utf8'), cipher.final()]);
    return ['enc', 'v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join(':');
  }

  open(kid: string, stored: string): string {
    if (!stored.startsWith('enc:')) return stored;
    if (!this.key) throw new Error(`signing key ${kid} is encrypted but SIGNING_KEY_ENCRYPTION_KEY is not set`);
    const [, version, iv, tag, ct] = stored.split(':');
    if (version !== 'v1') throw new Error(`signing key ${kid}: unknown encryption version ${version}`);
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(kid));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/** Holds a secret value so that logging, JSON.stringify and util.inspect never print it. */
export class Secret<T> {
  readonly #value: T;

  constructor(value: T) {
    this.#value = value;
  }

  reveal(): T {
    return this.#value;
  }

  toJSON(): string {
    return '[redacted]';
  }

  toString(): string {
    return '[redacted]';
  }

  [inspect.custom](): string {
    return '[redacted]';
  }
}
