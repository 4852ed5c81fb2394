import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { PrivateKeyCodec, Secret } from './key-crypto';

describe('PrivateKeyCodec', () => {
  const jwk = JSON.stringify({ kty: 'EC', crv: 'P-256', d: 'private-part', x: 'x', y: 'y' });

  it('stores plain JSON without an encryption key', () => {
    const codec = new PrivateKeyCodec();
    expect(codec.encrypts).toBe(false);
    expect(codec.seal('k1', jwk)).toBe(jwk);
    expect(codec.open('k1', jwk)).toBe(jwk);
  });

  it('encrypts with AES-256-GCM bound to the kid', () => {
    const codec = new PrivateKeyCodec(randomBytes(32).toString('base64url'));
    const sealed = codec.seal('k1', jwk);
    expect(sealed).toMatch(/^enc:v1:/);
    expect(sealed).not.toContain('private-part');
    expect(codec.open('k1', sealed)).toBe(jwk);
    expect(() => codec.open('k2', sealed)).toThrow();
    const parts = sealed.split(':');
    const ct = Buffer.from(parts[4], 'base64url');
    ct[0] ^= 1;
    parts[4] = ct.toString('base64url');
    expect(() => codec.open('k1', parts.join(':'))).toThrow();
  });

  it('refuses to open an encrypted key without the encryption key, or with another', () => {
    const sealed = new PrivateKeyCodec(randomBytes(32).toString('base64')).seal('k1', jwk);
    expect(() => new PrivateKeyCodec().open('k1', sealed)).toThrow('SIGNING_KEY_ENCRYPTION_KEY');
    expect(() => new PrivateKeyCodec(randomBytes(32).toString('base64')).open('k1', sealed)).toThrow();
  });

  it('rejects an encryption key of the wrong size', () => {
    expect(() => new PrivateKeyCodec(randomBytes(16).toString('base64'))).toThrow('32 bytes');
  });
});

describe('Secret', () => {
  it('never prints its value', () => {
    const s = new Secret({ d: 'private-part' });
    expect(JSON.stringify({ s })).not.toContain('private-part');
    expect(inspect(s)).not.toContain('private-part');
    expect(`${String(s)}`).toBe('[redacted]');
    expect(s.reveal()).toEqual({ d: 'private-part' });
  });
});
