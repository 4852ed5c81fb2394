import 'reflect-metadata';
import { plainToInstance, Type } from 'class-transformer';
import { IsDefined, IsInt, IsOptional, IsString, registerDecorator, validateSync, ValidateIf, ValidateNested, ValidatorOptions } from 'class-validator';
import { CreateRoughDiamondDto } from './create-rough-diamond.dto';
import { ValidationVerdict } from './validation-verdict';

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
