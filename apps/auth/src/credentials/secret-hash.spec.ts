import { decoyHash, hashSecret, isCredentialText, newClientId, newClientSecret, verifySecret } from './secret-hash';

describe('client secrets', () => {
  it('are 32 random bytes in base64url, and ids are distinct', () => {
    const a = newClientSecret();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a, 'base64url')).toHaveLength(32);
    expect(newClientSecret()).not.toBe(a);
    expect(newClientId()).not.toBe(newClientId());
  });

  it('hash with scrypt, a per-secret salt and the parameters stored', async () => {
    const secret = newClientSecret();
    const h1 = await hashSecret(secret);
    const h2 = await hashSecret(secret);
    expect(h1).toMatch(/^scrypt\$14\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(h1).not.toBe(h2);
    expect(h1).not.toContain(secret);
  });

  it('verify the right secret only', async () => {
    const secret = newClientSecret();
    const stored = await hashSecret(secret);
    await expect(verifySecret(secret, stored)).resolves.toBe(true);
    await expect(verifySecret(`${secret}x`, stored)).resolves.toBe(false);
    await expect(verifySecret('', stored)).resolves.toBe(false);
  });

  it('match byte for byte: trailing NULs (which HMAC would pad away) or other non-printable text never match', async () => {
    const secret = newClientSecret();
    const stored = await hashSecret(secret);
    for (const candidate of [`${secret}\u0000`, `${secret}${'\u0000'.repeat(21)}`, `${secret}\u0000garbage`, `${secret}\ud800`, `${secret}\u00e9`, '\u0000']) {
      await expect(verifySecret(candidate, stored)).resolves.toBe(false);
    }
    await expect(verifySecret(secret, stored)).resolves.toBe(true);
  });

  it('are printable ASCII only (RFC 6749 VSCHAR), 1 to 256 characters', async () => {
    expect(isCredentialText(newClientSecret())).toBe(true);
    expect(isCredentialText(' ~')).toBe(true);
    for (const bad of ['', 'a\u0000', 'a\u001f', 'a\u007f', 'é', '\ud800', 'x'.repeat(257)]) expect(isCredentialText(bad)).toBe(false);
    await expect(hashSecret('a\u0000')).rejects.toThrow('printable ASCII');
  });

  it('verify with the parameters stored in the hash', async () => {
    const secret = newClientSecret();
    const stronger = await hashSecret(secret, { logN: 15, r: 8, p: 1 });
    expect(stronger.startsWith('scrypt$15$8$1$')).toBe(true);
    await expect(verifySecret(secret, stronger)).resolves.toBe(true);
  });

  it('refuse malformed or out-of-range stored hashes', async () => {
    await expect(verifySecret('x', 'bcrypt$whatever')).rejects.toThrow('unsupported');
    await expect(verifySecret('x', 'scrypt$30$8$1$AAAA$AAAA')).rejects.toThrow('out-of-range');
  });

  it('a decoy hash matches nothing a caller could send', async () => {
    const decoy = await decoyHash();
    await expect(verifySecret('', decoy)).resolves.toBe(false);
    await expect(verifySecret(newClientSecret(), decoy)).resolves.toBe(false);
  });
});
