import { DOMAIN_ERROR_STATUS, domainErrorHeaders } from '@dtp/service-kit';
import { OAuthError } from './oauth-error';
import { parseTokenRequest } from './token-request';

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

function error(fn: () => unknown): { code: string; status: number; headers: Record<string, string> } {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(OAuthError);
    const e = err as OAuthError;
    // what the kit's exception filter answers with
    return { code: e.code, status: DOMAIN_ERROR_STATUS[e.kind], headers: domainErrorHeaders(e) };
  }
  throw new Error('expected an OAuthError');
}

describe('parseTokenRequest', () => {
  const base = { grant_type: 'client_credentials', audience: 'http://platform.test' };

  it('reads body credentials', () => {
    expect(parseTokenRequest({ ...base, client_id: 'c', client_secret: 's', scope: 'ignored' }, undefined)).toEqual({
      grantType: 'client_credentials',
      audience: 'http://platform.test',
      clientId: 'c',
      clientSecret: 's',
      basic: false,
    });
  });

  it('reads Basic credentials, form-url-decoded (RFC 6749 2.3.1)', () => {
    const parsed = parseTokenRequest(base, basic('id:with colon', 'sec+ret/=%'));
    expect(parsed).toMatchObject({ clientId: 'id:with colon', clientSecret: 'sec+ret/=%', basic: true });
    const plus = parseTokenRequest(base, `Basic ${Buffer.from('a+b:c+d').toString('base64')}`);
    expect(plus).toMatchObject({ clientId: 'a b', clientSecret: 'c d' });
  });

  it('allows client_id in the body when it equals the Basic one', () => {
    expect(parseTokenRequest({ ...base, client_id: 'c' }, basic('c', 's'))).toMatchObject({ clientId: 'c', basic: true });
    expect(error(() => parseTokenRequest({ ...base, client_id: 'other' }, basic('c', 's'))).code).toBe('invalid_request');
  });

  it('refuses two authentication methods', () => {
    expect(error(() => parseTokenRequest({ ...base, client_secret: 's' }, basic('c', 's'))).code).toBe('invalid_request');
  });

  it('malformed Basic is invalid_client with the Basic challenge', () => {
    for (const header of [
      'Basic',
      'Basic ###',
      `Basic ${Buffer.from('nocolon').toString('base64')}`,
      `Basic ${Buffer.from(':secret').toString('base64')}`,
      `Basic ${Buffer.from('%E0%A4%A:x').toString('base64')}`,
    ]) {
      const e = error(() => parseTokenRequest(base, header));
      expect(e).toMatchObject({ code: 'invalid_client', status: 401 });
      expect(e.headers['WWW-Authenticate']).toBe('Basic realm="dtp"');
    }
  });

  it('checks grant_type first', () => {
    expect(error(() => parseTokenRequest({}, undefined))).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(error(() => parseTokenRequest({ grant_type: 'password' }, undefined))).toMatchObject({ code: 'unsupported_grant_type', status: 400 });
    expect(error(() => parseTokenRequest({ grant_type: ['client_credentials', 'x'] }, undefined)).code).toBe('invalid_request');
  });

  it('refuses bodies that are not objects', () => {
    for (const body of [undefined, null, 'grant_type=client_credentials', [base], 42]) {
      expect(error(() => parseTokenRequest(body, undefined)).code).toBe('invalid_request');
    }
  });

  it('refuses client ids and secrets that are not printable ASCII, in the body or in Basic', () => {
    for (const [id, secret] of [
      ['c\u0000', 's'],
      ['c', 's\u0000x'],
      ['c', 's\ud800'],
      ['c\u0001', 's'],
      ['c', 'é'],
      ['c', 'x'.repeat(257)],
    ]) {
      expect(error(() => parseTokenRequest({ ...base, client_id: id, client_secret: secret }, undefined))).toMatchObject({
        code: 'invalid_client',
        status: 401,
      });
    }
    const e = error(() => parseTokenRequest(base, `Basic ${Buffer.from('c:s%00x').toString('base64')}`));
    expect(e).toMatchObject({ code: 'invalid_client', status: 401 });
    expect(e.headers['WWW-Authenticate']).toBe('Basic realm="dtp"');
  });

  it('sets no-store headers on every error', () => {
    expect(error(() => parseTokenRequest({}, undefined)).headers).toMatchObject({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  });
});
