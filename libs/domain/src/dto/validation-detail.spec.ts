import { CreateRoughDiamondDto } from './create-rough-diamond.dto';
import { ConsistencyQueryDto } from './custody.dto';
import { LookupQueryDto } from './lookup.dto';
import { CreateWebhookRequest, EventFeedQueryDto } from '../webhooks';
import { validatePlain } from './spec-helpers';
import { toValidationDetail } from './validation-detail';

describe('toValidationDetail', () => {
  it('lists every bad field with its path, message and constraint type', () => {
    const { errors } = validatePlain(CreateRoughDiamondDto, {
      box_id: '',
      participant_id: 'P1',
      participant_timestamp: '2024-05-01T10:00:00Z',
      rough: { carats: 'abc', extra: true },
    });
    expect(toValidationDetail(errors)).toEqual([
      { loc: ['body', 'box_id'], msg: 'box_id should not be empty', type: 'missing' },
      { loc: ['body', 'rough', 'extra'], msg: 'extra fields not permitted', type: 'extra_forbidden' },
      {
        loc: ['body', 'rough', 'carats'],
        msg: 'carats must be a number greater than 0 or decimal text such as "1.25"',
        type: 'is_positive_decimal',
      },
    ]);
  });

  it('uses numbers for array indices and honours the root', () => {
    const detail = toValidationDetail([{ property: 'cuts', children: [{ property: '1', children: [], constraints: { x: 'bad' } }] }], ['query']);
    expect(detail).toEqual([{ loc: ['query', 'cuts', 1], msg: 'bad', type: 'x' }]);
  });

  it('gives an absent required member one missing entry, not one per check of its value', () => {
    const absent = validatePlain(ConsistencyQueryDto, { to: '3' });
    expect(toValidationDetail(absent.errors, ['query'])).toEqual([{ loc: ['query', 'from'], msg: 'from is required', type: 'missing' }]);
    // A value that is there but wrong still gets every check it fails.
    const zero = validatePlain(ConsistencyQueryDto, { from: '0', to: '3' });
    expect(toValidationDetail(zero.errors, ['query'])).toEqual([{ loc: ['query', 'from'], msg: 'from must not be less than 1', type: 'greater_than_equal' }]);
  });

  it('gives a value of the wrong kind its kind entries only, not the checks that presume the kind', () => {
    // A number for a text of at most 1,000 characters: not "shorter than or equal to 1000 characters".
    const number = validatePlain(CreateWebhookRequest, { url: 'https://hooks.example.com/dtp', description: 42 });
    expect(toValidationDetail(number.errors)).toEqual([{ loc: ['body', 'description'], msg: 'description must be a string', type: 'string_type' }]);
    // A text for a list of at most 7 distinct types: not "no more than 7 elements", "elements must be unique".
    const text = validatePlain(CreateWebhookRequest, { url: 'https://hooks.example.com/dtp', event_types: 'dtp.diamond.updated' });
    expect(toValidationDetail(text.errors)).toEqual([{ loc: ['body', 'event_types'], msg: 'event_types must be an array', type: 'list_type' }]);
    // A repeated query parameter arrives as a list.
    const repeated = validatePlain(EventFeedQueryDto, { limit: ['1', '2'] });
    expect(toValidationDetail(repeated.errors, ['query'])).toEqual([{ loc: ['query', 'limit'], msg: 'limit must be an integer number', type: 'int_type' }]);
    const twice = validatePlain(LookupQueryDto, { grader_report_number: ['abc', 'def'] });
    expect(toValidationDetail(twice.errors, ['query'])).toEqual([
      { loc: ['query', 'grader_report_number'], msg: 'grader_report_number must be a string', type: 'string_type' },
    ]);
    // null for a required object: one entry, not also "should not be null" and "nested property must be object".
    const nullObject = validatePlain(CreateRoughDiamondDto, { box_id: 'B', participant_id: 'P1', participant_timestamp: '2024-05-01T10:00:00Z', rough: null });
    expect(toValidationDetail(nullObject.errors)).toEqual([{ loc: ['body', 'rough'], msg: 'rough must be an object', type: 'dict_type' }]);
    // A value of the right kind still gets every check it fails.
    const long = validatePlain(CreateWebhookRequest, { url: 'https://hooks.example.com/dtp', event_types: ['dtp.ping', 'dtp.ping'] });
    expect(toValidationDetail(long.errors).map((d) => d.type)).toEqual(['enum', 'array_unique']);
  });
});
