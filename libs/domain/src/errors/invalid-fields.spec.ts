import { MAX_VALIDATION_DETAILS } from '../rules/limits';
import { DomainError, InvalidError, invalidFields } from './index';

describe('invalidFields', () => {
  it('is a 422 domain error whose body is `{detail, message}`, the message naming each field from its loc', () => {
    const err = invalidFields([
      { loc: ['body', 'sight_no'], msg: 'sight_no must be an integer', type: 'int_type' },
      { loc: ['query', 'page'], msg: 'page must be at most 3', type: 'less_than_equal' },
      { loc: ['body'], msg: 'too many form fields', type: 'too_long' },
    ]);
    expect(err).toBeInstanceOf(InvalidError);
    expect(err).toBeInstanceOf(DomainError);
    expect(err.kind).toBe('invalid');
    expect(JSON.stringify(err.body)).toBe(
      JSON.stringify({
        detail: [
          { loc: ['body', 'sight_no'], msg: 'sight_no must be an integer', type: 'int_type' },
          { loc: ['query', 'page'], msg: 'page must be at most 3', type: 'less_than_equal' },
          { loc: ['body'], msg: 'too many form fields', type: 'too_long' },
        ],
        message: 'sight_no: sight_no must be an integer; page: page must be at most 3; body: too many form fields',
      }),
    );
    expect(err.message).toBe(err.body.message);
    expect(err.headers).toBeUndefined();
    expect(err.retryAfterSeconds).toBeUndefined();
  });

  it(`sends at most ${MAX_VALIDATION_DETAILS} entries and counts the rest in detail_omitted`, () => {
    const details = Array.from({ length: 120 }, (_, i) => ({ loc: ['body', 'items', i], msg: 'bad', type: 'value_error' }));
    const body = invalidFields(details).body as { detail: unknown[]; message: string; detail_omitted: number };
    expect(Object.keys(body)).toEqual(['detail', 'message', 'detail_omitted']);
    expect(body.detail).toEqual(details.slice(0, MAX_VALIDATION_DETAILS));
    expect(body.detail_omitted).toBe(70);
    expect(body.message).toMatch(/^items\.0: bad; items\.1: bad; .*items\.49: bad; and 70 more$/);
    expect(Object.keys(invalidFields(details.slice(0, MAX_VALIDATION_DETAILS)).body)).toEqual(['detail', 'message']);
  });
});
