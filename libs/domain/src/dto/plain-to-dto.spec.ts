import 'reflect-metadata';
import { Exclude, Expose, plainToInstance, Transform, Type } from 'class-transformer';
import fc from 'fast-check';
import { inspect, isDeepStrictEqual } from 'node:util';
import * as classTransformer from 'class-transformer';
import { plainToDto } from './plain-to-dto';

class Leaf {
  n?: unknown;
  get doubled(): number {
    return Number(this.n) * 2;
  }
  describe(): string {
    return `leaf ${String(this.n)}`;
  }
}
class Base {
  @Type(() => Leaf) inherited?: Leaf;
  kept = 'default';
}
class Root extends Base {
  @Type(() => Leaf) leaf?: Leaf;
  @Type(() => Leaf) leaves?: Leaf[];
  @Type(() => String) text?: string;
  @Type(() => Number) count?: number;
  @Type(() => Boolean) flag?: boolean;
  @Type(() => Date) at?: Date;
  tags?: unknown;
  // A subclass's @Type wins over its ancestor's.
  @Type(() => Root) nested?: Root;
}
class WithTransform {
  @Transform(({ value }) => String(value).toUpperCase()) name?: string;
}
class WithExpose {
  @Expose({ name: 'full_name' }) name?: string;
  @Exclude() secret?: string;
}

/** What `make` answers, or the error it throws. */
function settle(make: () => unknown): { value: unknown } | { error: string } {
  try {
    return { value: make() };
  } catch (err) {
    return { error: String(err) };
  }
}
/** Both answers, and whether they are the same instances (an invalid Date equals another: inspect's text). */
const same = (cls: new () => object, plain: unknown) => {
  const ours = settle(() => plainToDto(cls, plain));
  const theirs = settle(() => plainToInstance(cls, plain));
  const equal = isDeepStrictEqual(ours, theirs) || inspect(ours, { depth: null }) === inspect(theirs, { depth: null });
  return { ours: 'value' in ours ? ours.value : ours, theirs: 'value' in theirs ? theirs.value : theirs, equal };
};

const member = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom('toString', 'doubled', 'describe', 'kept', '__proto__', '2024-01-02T03:04:05Z', 'x'));
const names = fc.constantFrom(
  'leaf',
  'leaves',
  'text',
  'count',
  'flag',
  'at',
  'tags',
  'inherited',
  'kept',
  'nested',
  'doubled',
  'describe',
  'toString',
  'n',
  'other',
);

describe('plainToDto: class-transformer plainToInstance, without its per-member bookkeeping', () => {
  it('makes what class-transformer makes for JSON values of every shape (3,000 values, parsed and built)', () => {
    const body = fc.dictionary(names, fc.oneof(member, fc.dictionary(names, member), fc.array(fc.dictionary(names, member), { maxLength: 3 })));
    fc.assert(
      fc.property(body, (plain) => {
        expect(same(Root, plain).equal).toBe(true);
        // The same text through JSON.parse (a parsed `__proto__` member is an own member, not the prototype).
        expect(same(Root, JSON.parse(JSON.stringify(plain))).equal).toBe(true);
      }),
      { numRuns: 1_500 },
    );
  });

  it('makes instances of the @Type classes, converts String/Number/Boolean/Date members and leaves out prototype members', () => {
    const plain = JSON.parse(
      '{"leaf":{"n":1,"doubled":5,"describe":"x"},"leaves":[{"n":2},null,3],"text":7,"count":"8","flag":0,"at":"2024-01-02T03:04:05Z",' +
        '"inherited":{"n":4},"nested":{"leaf":{"n":5},"kept":"mine"},"tags":{"a":[1,{"b":null}]},"constructor":"c","__proto__":{"p":1}}',
    ) as unknown;
    const { ours, theirs, equal } = same(Root, plain);
    expect(equal).toBe(true);
    // Made here, not by class-transformer.
    const reference = jest.spyOn(classTransformer, 'plainToInstance');
    expect(plainToDto(Root, plain)).toBeInstanceOf(Root);
    expect(reference).not.toHaveBeenCalled();
    reference.mockRestore();
    const root = ours as Root;
    expect(root).toBeInstanceOf(Root);
    expect(root.leaf).toBeInstanceOf(Leaf);
    expect(root.leaf!.doubled).toBe(2); // the getter, not the member
    expect(root.leaves![0]).toBeInstanceOf(Leaf);
    expect(root.leaves!.slice(1)).toEqual([null, 3]);
    expect([root.text, root.count, root.flag]).toEqual(['7', 8, false]);
    expect(root.at).toEqual(new Date('2024-01-02T03:04:05Z'));
    expect(root.inherited).toBeInstanceOf(Leaf);
    expect(root.nested).toBeInstanceOf(Root);
    expect(root.nested!.kept).toBe('mine');
    expect(root.kept).toBe('default');
    expect(Object.getPrototypeOf(root.tags)).toBe(Object.prototype);
    expect(theirs).toBeInstanceOf(Root);
  });

  it("leaves to class-transformer what it does not follow: other decorators, values JSON does not make, an array's holes", () => {
    for (const [cls, plain] of [
      [WithTransform, { name: 'ada' }],
      [WithExpose, { full_name: 'Ada', secret: 's' }],
      [Root, { at: new Date(0), tags: { when: new Date(0) } }],
      [Root, { tags: new Map([['a', 1]]) }],
      [Root, { tags: Buffer.from('x') }],
      [Root, { leaves: [{ n: 1 }, , { n: 3 }] }],
      // class-transformer takes the member for the object's class and throws; so does plainToDto, through it.
      [Root, { tags: { constructor: 'x' } }],
      [Root, [{ leaf: { n: 1 } }, { text: 2 }]],
      [Root, 'not an object'],
    ] as [new () => object, unknown][]) {
      expect([cls.name, plain, same(cls, plain).equal]).toEqual([cls.name, plain, true]);
    }
    expect((plainToDto(WithTransform, { name: 'ada' }) as WithTransform).name).toBe('ADA');
    expect((plainToDto(WithExpose, { full_name: 'Ada' }) as WithExpose).name).toBe('Ada');
  });
});
