import { randomBytes } from 'node:crypto';
import { AtRestCipher } from './at-rest-cipher';

/** The stored value with its ciphertext's first byte flipped. */
function tampered(sealed: string): string {
  const parts = sealed.split(':');
  const ct = Buffer.from(parts[4], 'base64url');
  ct[0] ^= 1;
  parts[4] = ct.toString('base64url');
  return parts.join(':');
}

describe('AtRestCipher', () => {
  const key = randomBytes(32).toString('base64');
  const cipher = new AtRestCipher(key, 'SOME_ENCRYPTION_KEY', 'thing');

  it('seals with AES-256-GCM, a fresh IV each time, bound to the id; opens what it sealed', () => {
    const a = cipher.seal('id-1', 'whsec_plain');
    const b = cipher.seal('id-1', 'whsec_plain');
    expect(a).toMatch(/^enc:v1:/);
    expect(a).not.toBe(b);
    expect(AtRestCipher.isSealed(a)).toBe(true);
    expect(AtRestCipher.isSealed('whsec_plain')).toBe(false);
    expect([cipher.open('id-1', a), cipher.open('id-1', b)]).toEqual(['whsec_plain', 'whsec_plain']);
  });

  it('names the value and the variable when it cannot open one, and never prints the value', () => {
    const sealed = cipher.seal('id-1', 'whsec_plain');
    const tries = [
      () => cipher.open('id-2', sealed),
      () => new AtRestCipher(randomBytes(32).toString('base64url'), 'SOME_ENCRYPTION_KEY', 'thing').open('id-1', sealed),
      () => cipher.open('id-1', tampered(sealed)),
    ];
    for (const t of tries) expect(t).toThrow(/^thing id-\d does not open with this SOME_ENCRYPTION_KEY/);
    expect(() => new AtRestCipher(undefined, 'SOME_ENCRYPTION_KEY', 'thing').open('id-1', sealed)).toThrow(
      'thing id-1 is encrypted but SOME_ENCRYPTION_KEY is not set',
    );
    expect(() => cipher.open('id-1', 'enc:v9:a:b:c')).toThrow('thing id-1: unknown encryption version v9');
    for (const t of tries) expect(() => t()).not.toThrow(/whsec_plain/);
  });

  it('stores and reads plain text without a key, and reads plain text with one (values written before it was set)', () => {
    const none = new AtRestCipher(undefined, 'SOME_ENCRYPTION_KEY', 'thing');
    expect([none.encrypts, none.seal('id-1', 'whsec_plain'), cipher.open('id-1', 'whsec_plain')]).toEqual([false, 'whsec_plain', 'whsec_plain']);
    expect(() => new AtRestCipher(randomBytes(31).toString('base64'), 'SOME_ENCRYPTION_KEY', 'thing')).toThrow('SOME_ENCRYPTION_KEY must decode to 32 bytes');
  });

  it('changing the key: values sealed with a previous key still open, reseal moves them (and plain text) to the new key', () => {
    const old = randomBytes(32).toString('base64');
    const older = randomBytes(32).toString('base64url');
    const byOld = new AtRestCipher(old, 'SOME_ENCRYPTION_KEY', 'thing').seal('id-1', 'whsec_old');
    const byOlder = new AtRestCipher(older, 'SOME_ENCRYPTION_KEY', 'thing').seal('id-2', 'whsec_older');
    const next = new AtRestCipher(key, 'SOME_ENCRYPTION_KEY', 'thing', `${old},${older}`);
    expect(next.rotating).toBe(true);
    expect([next.open('id-1', byOld), next.open('id-2', byOlder)]).toEqual(['whsec_old', 'whsec_older']);

    const moved = next.reseal('id-1', byOld);
    expect(moved).not.toBe(byOld);
    expect(cipher.open('id-1', moved)).toBe('whsec_old'); // the new key alone opens it now
    expect(next.reseal('id-1', moved)).toBe(moved); // already with the new key: as it is
    expect(cipher.open('id-3', next.reseal('id-3', 'whsec_plain'))).toBe('whsec_plain');
    expect(new AtRestCipher(undefined, 'SOME_ENCRYPTION_KEY', 'thing').reseal('id-3', 'whsec_plain')).toBe('whsec_plain');

    // Not opened by any configured key: named with both variables, never printed.
    const stranger = new AtRestCipher(randomBytes(32).toString('base64'), 'SOME_ENCRYPTION_KEY', 'thing').seal('id-4', 'whsec_x');
    for (const t of [() => next.open('id-4', stranger), () => next.reseal('id-4', stranger)]) {
      expect(t).toThrow('thing id-4 does not open with SOME_ENCRYPTION_KEY nor SOME_ENCRYPTION_KEY_PREVIOUS');
    }
    expect(() => cipher.open('id-1', byOld)).toThrow('thing id-1 does not open with this SOME_ENCRYPTION_KEY');
    expect(() => new AtRestCipher(undefined, 'SOME_ENCRYPTION_KEY', 'thing', old)).toThrow('SOME_ENCRYPTION_KEY_PREVIOUS needs SOME_ENCRYPTION_KEY');
    expect(() => new AtRestCipher(key, 'SOME_ENCRYPTION_KEY', 'thing', `${old},abc`)).toThrow('SOME_ENCRYPTION_KEY_PREVIOUS must decode to 32 bytes');
  });
});
