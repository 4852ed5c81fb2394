import { inspect } from 'node:util';
import { AtRestCipher } from '@dtp/service-kit';

/**
 * At-rest protection of private signing keys: with SIGNING_KEY_ENCRYPTION_KEY set, the private JWK is stored as
 * `enc:v1:<iv>:<tag>:<ciphertext>` (AES-256-GCM, the key id as additional data so a row cannot be swapped for
 * another's; the kit's AtRestCipher). Without it the JWK is stored as JSON text. SIGNING_KEY_ENCRYPTION_KEY_PREVIOUS
 * (only while changing the key): more keys a private key may be sealed with, opened too.
 */
export class PrivateKeyCodec extends AtRestCipher {
  constructor(encryptionKey?: string, previousKeys?: string) {
    super(encryptionKey, 'SIGNING_KEY_ENCRYPTION_KEY', 'signing key', previousKeys);
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
