import { CreateRoughDiamondDto } from './create-rough-diamond.dto';
import { ConsistencyQueryDto } from './custody.dto';
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
});
