import { DomainError } from './index';
import { IDEMPOTENCY_KEY_IN_USE, idempotencyKeyInUse, idempotencyKeyInvalid, idempotencyKeyReused, parseIdempotencyKey } from './idempotency';

describe('parseIdempotencyKey', () => {
  it.each([
    ['8e03978e-40d5-43e8-bc93-6894a57f9324', '8e03978e-40d5-43e8-bc93-6894a57f9324'],
    ['"8e03978e-40d5-43e8-bc93-6894a57f9324"', '8e03978e-40d5-43e8-bc93-6894a57f9324'],
    ['"a \\"quoted\\" \\\\ key"', 'a "quoted" \\ key'],
    ['import.csv:line 7', 'import.csv:line 7'],
    ['x'.repeat(255), 'x'.repeat(255)],
  ])('accepts %#: %j', (header, key) => {
    expect(parseIdempotencyKey(header)).toEqual({ key });
  });

  it.each([
    ['', 'must not be empty'],
    ['""', 'must not be empty'],
    ['x'.repeat(256), 'at most 255'], // (256 characters)
    ['caf\u00e9', 'printable ASCII'],
    ['tab\there', 'printable ASCII'],
    ['"unterminated', 'quoted string'],
    ['"bad \\n escape"', 'quoted string'],
  ])('refuses %#: %j', (header, problem) => {
    const parsed = parseIdempotencyKey(header);
    expect('problem' in parsed && parsed.problem).toContain(problem);
  });
});

describe('idempotency answers', () => {
  it('409 idempotency_key_in_use: {message, reason}', () => {
    const err = idempotencyKeyInUse();
    expect(err).toBeInstanceOf(DomainError);
    expect(err.kind).toBe('conflict');
    expect(err.body).toEqual({ message: expect.any(String), reason: IDEMPOTENCY_KEY_IN_USE });
  });

  it('422s name the header', () => {
    for (const [err, type] of [
      [idempotencyKeyInvalid('bad'), 'idempotency_key_invalid'],
      [idempotencyKeyReused(), 'idempotency_key_reused'],
    ] as const) {
      expect(err.kind).toBe('invalid');
      expect(err.body.detail).toEqual([{ loc: ['header', 'Idempotency-Key'], msg: expect.any(String), type }]);
      expect(err.body.message).toEqual(expect.stringContaining('Idempotency-Key'));
    }
  });
});
