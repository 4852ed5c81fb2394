import 'reflect-metadata';
import { plainToInstance, Type } from 'class-transformer';
import {
  getMetadataStorage,
  IsDefined,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  isISO8601,
  MaxLength,
  registerDecorator,
  validateSync,
  ValidateIf,
  ValidateNested,
  ValidatorOptions,
} from 'class-validator';
import { CreateRoughDiamondDto } from './create-rough-diamond.dto';
import { isCalendarDateTime, ValidationVerdict } from './validation-verdict';

// The global pipe's options (service-kit ApiValidationPipe).
const PIPE: ValidatorOptions = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true, validationError: { target: false, value: true } };
const verdict = new ValidationVerdict();

function RejectsPromise(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'rejectsLater',
      target: target.constructor,
      propertyName: propertyName as string,
      async: true,
      validator: { validate: async () => false },
    });
}
function Throws(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'throws',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) => {
          if (value === 'boom') throw new Error('boom');
          return true;
        },
      },
    });
}

class Leaf {
  @IsInt() n!: number;
}
class Tree {
  @IsString() name!: string;
  @IsOptional() @ValidateNested() @Type(() => Leaf) leaf?: Leaf | null;
  @IsOptional() @ValidateNested({ each: true }) @Type(() => Leaf) leaves?: Leaf[];
  @IsOptional() @IsInt({ each: true }) counts?: number[];
  @ValidateIf((o: Tree) => o.name === 'strict') @IsDefined() @IsString() only_if_strict?: string;
  @IsOptional() @Throws() risky?: string;
}
class Later {
  @RejectsPromise() x!: string;
}

const both = (cls: new () => object, plain: unknown, options: ValidatorOptions = PIPE) => {
  const instance = plainToInstance(cls, plain) as object;
  return { passes: verdict.passes(instance, options), errors: validateSync(instance, options).length };
};

describe('ValidationVerdict: passes exactly what class-validator finds nothing in, or leaves it to class-validator', () => {
  it.each([
    ['a valid tree', { name: 'a' }, true],
    ['a nested object', { name: 'a', leaf: { n: 1 } }, true],
    ['a nested object with an error', { name: 'a', leaf: { n: 1.5 } }, false],
    ['a nested object with an unknown member', { name: 'a', leaf: { n: 1, m: 2 } }, false],
    ['null where nesting is optional', { name: 'a', leaf: null }, true],
    ['a primitive where an object is nested', { name: 'a', leaf: 3 }, false],
    ['nested items', { name: 'a', leaves: [{ n: 1 }, { n: 2 }] }, true],
    ['a nested item with an error', { name: 'a', leaves: [{ n: 1 }, { n: 'x' }] }, false],
    ['a null nested item', { name: 'a', leaves: [{ n: 1 }, null] }, false],
    ['each item checked', { name: 'a', counts: [1, 2, 3] }, true],
    ['one item failing', { name: 'a', counts: [1, 2.5] }, false],
    ['a member without rules', { name: 'a', extra: 1 }, false],
    ['a condition that holds, rule met', { name: 'strict', only_if_strict: 's' }, true],
    ['a condition that holds, rule not met', { name: 'strict' }, false],
    ['a condition that does not hold', { name: 'lax' }, true],
  ])('%s', (_what, plain, valid) => {
    expect(both(Tree, plain)).toEqual({ passes: valid, errors: valid ? 0 : expect.any(Number) });
  });

  it('passes a registration body the benchmark sends, and refuses one with a wrong nested value', () => {
    const body = { box_id: 'B', participant_id: 'P', participant_timestamp: '2024-03-01T10:00:00Z', sight_no: 3, rough: { carats: 1.25, colour: 'D' } };
    expect(both(CreateRoughDiamondDto, body)).toEqual({ passes: true, errors: 0 });
    expect(both(CreateRoughDiamondDto, { ...body, rough: { carats: -1 } })).toEqual({ passes: false, errors: 1 });
  });

  it('leaves to class-validator an asynchronous rule, a rule that throws, and options it does not follow', () => {
    expect(verdict.passes(plainToInstance(Later, { x: 'a' }), PIPE)).toBe(false);
    expect(verdict.passes(plainToInstance(Tree, { name: 'a', risky: 'boom' }), PIPE)).toBe(false);
    expect(() => validateSync(plainToInstance(Tree, { name: 'a', risky: 'boom' }), PIPE)).toThrow('boom');
    const valid = plainToInstance(Tree, { name: 'a' });
    expect(verdict.passes(valid, PIPE)).toBe(true);
    for (const options of [{ ...PIPE, groups: ['g'] }, { ...PIPE, skipMissingProperties: true }, { ...PIPE, always: true }, { whitelist: true }]) {
      expect(verdict.passes(valid, options)).toBe(false);
    }
  });

  it('leaves to class-validator an object of a class without rules', () => {
    class Bare {
      x = 1;
    }
    expect(verdict.passes(new Bare(), PIPE)).toBe(false);
    expect(validateSync(new Bare(), PIPE).length).toBe(1);
  });

  it('sees rules declared after its first verdict on a class', () => {
    class Grows {
      @IsString() a!: string;
      b?: unknown;
    }
    const value = plainToInstance(Grows, { a: 'x', b: 'y' });
    expect(verdict.passes(value, PIPE)).toBe(false); // b has no rule yet: not whitelisted
    IsInt()(Grows.prototype, 'b');
    expect(verdict.passes(value, PIPE)).toBe(false); // b must now be an integer
    expect(verdict.passes(plainToInstance(Grows, { a: 'x', b: 2 }), PIPE)).toBe(true);
    expect(validateSync(plainToInstance(Grows, { a: 'x', b: 2 }), PIPE)).toEqual([]);
  });
});

describe('ValidationVerdict: the rules it answers without asking them (MaxLength, IsISO8601)', () => {
  class Bounded {
    @MaxLength(5) short!: string;
    @IsOptional() @MaxLength(3, { each: true }) tags?: string[];
    @IsOptional() @IsISO8601({ strict: true }) at?: string;
    @IsOptional() @IsISO8601() loose?: string;
  }

  it.each([
    ['five code units', { short: 'abcde' }, true],
    ['six code units', { short: 'abcdef' }, false],
    // validator counts a surrogate pair as one: three emoji are six code units and pass a bound of 5
    ['surrogate pairs counted as one', { short: '\u{1F48E}\u{1F48E}\u{1F48E}' }, true],
    ['too many even so', { short: '\u{1F48E}\u{1F48E}\u{1F48E}abc' }, false],
    ['not a string', { short: 12 }, false],
    ['each item within its bound', { short: 'a', tags: ['abc', 'de'] }, true],
    ['one item past it', { short: 'a', tags: ['abc', 'defg'] }, false],
    ['a date-time', { short: 'a', at: '2024-02-29T23:59:59.123456Z' }, true],
    ['a date', { short: 'a', at: '2023-12-31' }, true],
    ['a day that does not exist', { short: 'a', at: '2023-02-29T10:00:00Z' }, false],
    ['a day that does not exist, not strict', { short: 'a', loose: '2023-02-29T10:00:00Z' }, true],
    ['a week date (the long way)', { short: 'a', at: '2024-W09-4' }, true],
    ['hour 24', { short: 'a', at: '2024-03-01T24:00Z' }, true],
    ['not a date', { short: 'a', at: '2024-13-01' }, false],
  ])('%s', (_what, plain, valid) => {
    expect(both(Bounded, plain)).toEqual({ passes: valid, errors: valid ? 0 : expect.any(Number) });
  });

  it('answers them without calling the rule for the values it knows, and calls the rule for the others', () => {
    const instanceOf = (property: string) => {
      const metadata = getMetadataStorage()
        .getTargetValidationMetadatas(Bounded, '', false, false)
        .find((m) => m.propertyName === property)!;
      return getMetadataStorage().getTargetValidatorConstraints(metadata.constraintCls)[0].instance as { validate: (...a: unknown[]) => unknown };
    };
    const short = jest.spyOn(instanceOf('short'), 'validate');
    const at = jest.spyOn(instanceOf('at'), 'validate');
    try {
      expect(verdict.passes(plainToInstance(Bounded, { short: 'abc', at: '2024-03-01T10:00:00Z' }), PIPE)).toBe(true);
      expect(short).not.toHaveBeenCalled();
      expect(at).not.toHaveBeenCalled();
      const calls = () => [short.mock.calls.length, at.mock.calls.length];
      short.mockClear();
      at.mockClear();
      // a week date and a string of surrogate pairs longer than the bound in code units: the rules are asked
      expect(verdict.passes(plainToInstance(Bounded, { short: '\u{1F48E}\u{1F48E}\u{1F48E}', at: '2024-W09-4' }), PIPE)).toBe(true);
      expect(calls()).toEqual([1, 1]);
    } finally {
      short.mockRestore();
      at.mockRestore();
    }
  });

  it('takes as calendar date-time text only what validator accepts with its calendar check', () => {
    const years = ['0000', '0001', '0004', '0100', '0400', '1600', '1700', '1900', '1999', '2000', '2023', '2024', '2100', '2400', '9999'];
    const months = ['00', '01', '02', '04', '09', '10', '12', '13', '1'];
    const days = ['00', '01', '09', '10', '19', '28', '29', '30', '31', '32', '3'];
    const times = [
      '',
      'T00:00:00Z',
      'T23:59:59+05:30',
      'T12:00:00.5-11:00',
      'T12:00:00.123456789Z',
      'T24:00:00Z',
      'T12:60:00Z',
      'T12:00:60Z',
      'T12:00Z',
      'T12:00:00',
      'T12:00:00+24:00',
      ' 12:00:00Z',
      'T12:00:00.1234567890Z',
      'T12:00:00,5Z',
      'T12:00:00z',
      'T12:00:00+0530',
    ];
    let quick = 0;
    for (const y of years)
      for (const m of months)
        for (const d of days)
          for (const t of times) {
            const text = `${y}-${m}-${d}${t}`;
            if (!isCalendarDateTime(text)) continue;
            quick += 1;
            expect([text, isISO8601(text, { strict: true })]).toEqual([text, true]);
          }
    // a real share of those forms is answered quickly (every existing day, with the six times of the form)
    expect(quick).toBeGreaterThan(1000);
    for (const other of [
      undefined,
      null,
      20240229,
      '',
      '0999-01-01',
      '0000-01-01',
      ' 2024-01-01',
      '2024-01-01 ',
      '+2024-01-01',
      '2024-001',
      '20240101',
      '2024-01-01T10:00:00Z\n',
    ]) {
      expect(isCalendarDateTime(other)).toBe(false);
    }
  });
});
