import { errorText, isTransientError, ParkEventError, RetryEventError } from './errors';

describe('isTransientError', () => {
  it.each([
    ['RetryEventError', new RetryEventError('store away')],
    ['a serialization failure (SQLSTATE class 40)', Object.assign(new Error('could not serialize'), { code: '40001' })],
    ['a connection exception (class 08)', Object.assign(new Error('x'), { code: '08006' })],
    ['a statement timeout (57014)', Object.assign(new Error('canceled'), { code: '57014' })],
    ['a refused connection', Object.assign(new Error('connect'), { code: 'ECONNREFUSED' })],
    ['a driver message without a code', new Error('Connection terminated unexpectedly')],
    ['an S3 error that says it is retryable', Object.assign(new Error('slow down'), { $retryable: { throttling: true } })],
    ['an HTTP 503', Object.assign(new Error('unavailable'), { $metadata: { httpStatusCode: 503 } })],
    ['an HTTP 429', Object.assign(new Error('too many'), { $metadata: { httpStatusCode: 429 } })],
    ['a TypeORM error around a driver error', Object.assign(new Error('query failed'), { driverError: { code: '40P01' } })],
    ['a cause two levels down', new Error('outer', { cause: new Error('middle', { cause: { code: 'ETIMEDOUT' } }) })],
  ])('is true for %s', (_what, err) => {
    expect(isTransientError(err)).toBe(true);
  });

  it.each([
    ['ParkEventError', new ParkEventError('refused')],
    ['a unique violation (23505)', Object.assign(new Error('duplicate key'), { code: '23505' })],
    ['an HTTP 404', Object.assign(new Error('not found'), { $metadata: { httpStatusCode: 404 } })],
    ['a plain error', new Error('boom')],
    ['a string', 'boom'],
    ['null', null],
    ['a ParkEventError whose cause is temporary', Object.assign(new ParkEventError('no'), { cause: new RetryEventError('x') })],
  ])('is false for %s', (_what, err) => {
    expect(isTransientError(err)).toBe(false);
  });

  it('looks only a few causes deep', () => {
    let err: unknown = { code: 'ECONNRESET' };
    for (let i = 0; i < 5; i += 1) err = { cause: err };
    expect(isTransientError(err)).toBe(false);
  });
});

describe('errorText', () => {
  it('is the message of an error, the text of anything else, and never throws', () => {
    expect(errorText(new Error('boom'))).toBe('boom');
    expect(errorText(42)).toBe('42');
    const hostile = {
      toString: () => {
        throw new Error('no');
      },
    };
    expect(errorText(hostile)).toBe('unprintable error');
  });
});
