import { clientValue, ERROR_DESCRIPTION_CHARSET, OAuthError, safeDescription } from './oauth-error';

const description = (e: OAuthError) => (e.body as { error_description: string }).error_description;

describe('OAuthError descriptions (RFC 6749 5.2 character set)', () => {
  it('keeps a description already within the set as it is', () => {
    const text = "grant_type 'x' is not supported; use client_credentials (see RFC 6749 4.4) [ok] {}~!#$%&*+,-./:;<=>?@^_`|";
    expect(description(new OAuthError('invalid_request', text))).toBe(text);
  });

  it('no UTF-16 code unit (every BMP character, every lone surrogate) survives outside the set', () => {
    const all = Array.from({ length: 0x10000 }, (_, i) => String.fromCharCode(i));
    for (let i = 0; i < all.length; i += 256) {
      const chunk = all.slice(i, i + 256).join('');
      expect(description(new OAuthError('invalid_request', chunk))).toMatch(ERROR_DESCRIPTION_CHARSET);
      expect(clientValue(chunk)).toMatch(ERROR_DESCRIPTION_CHARSET);
    }
  });

  it('replaces quotes and backslashes readably, and everything else outside the set with one ? per code point', () => {
    expect(safeDescription('a "b" \\c')).toBe("a 'b' /c");
    expect(safeDescription('nul\u0000 é \u{1F48E} \ud800 line\nbreak\ttab')).toBe('nul? ? ? ? line break tab');
  });

  it('caps descriptions and quoted client values', () => {
    expect(safeDescription('x'.repeat(10_000))).toHaveLength(300);
    expect(clientValue('y'.repeat(1000))).toBe(`'${'y'.repeat(64)}...'`);
  });
});
