import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { canonicalJson } from './hashing';

// The reference is the `canonicalize` package (RFC 8785's reference code, the one libs/verify checks proofs with):
// canonicalJson must write exactly its text, or throw where it throws.
const reference = (value: unknown): string | Error => {
  try {
    const text = canonicalize(value);
    return text === undefined ? new TypeError('value has no JSON form') : text;
  } catch (err) {
    return err as Error;
  }
};
const ours = (value: unknown): string | Error => {
  try {
    return canonicalJson(value);
  } catch (err) {
    return err as Error;
  }
};
const same = (value: unknown) => {
  const expected = reference(value);
  const actual = ours(value);
  if (expected instanceof Error) expect(actual).toBeInstanceOf(Error);
  else expect(actual).toBe(expected);
};

// Member names that sort in surprising ways: array indexes (V8 enumerates them first, in numeric order), numbers
// that are not indexes, `__proto__`, non-ASCII above and below the surrogates, escapes, the empty name.
const names = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '0',
    '1',
    '9',
    '10',
    '01',
    '-1',
    '1.5',
    '4294967294',
    '4294967295',
    '1e3',
    '__proto__',
    '',
    'a',
    'B',
    'é',
    '\u{1F600}',
    '\uffff',
    '"',
    '\\',
    '\n',
  ),
);
const leaves = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(undefined, 0, -0, 1e21, 1e-7, 5e-324, Number.MAX_VALUE, 0.1 + 0.2),
);
const values = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaves, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 6 }),
  object: fc.array(fc.tuple(names, tie('value')), { maxLength: 8 }).map((members) => {
    // Own members, `__proto__` included (as JSON.parse makes it), in the order drawn.
    const object: Record<string, unknown> = {};
    for (const [name, member] of members) Object.defineProperty(object, name, { value: member, enumerable: true, writable: true, configurable: true });
    return object;
  }),
})).value;

describe('canonicalJson (RFC 8785) writes what the reference writes', () => {
  it('for any value built from JSON values, undefined and odd member names', () => {
    fc.assert(fc.property(values, same), { numRuns: 3000 });
  });

  it('for any JSON text parsed', () => {
    fc.assert(
      fc.property(fc.json(), (text) => same(JSON.parse(text))),
      { numRuns: 1000 },
    );
  });

  it('for members whose order is not their sort order, and index-like names whatever their order', () => {
    expect(canonicalJson({ b: 1, a: [{ d: true, c: null }], é: 'x', Z: 0 })).toBe('{"Z":0,"a":[{"c":null,"d":true}],"b":1,"é":"x"}');
    // Code-unit order: "10" before "9" before "a", though V8 enumerates 9 before 10.
    expect(canonicalJson({ a: 1, 9: 2, 10: 3 })).toBe('{"10":3,"9":2,"a":1}');
    // U+1F600 is a surrogate pair (D83D...), which sorts before U+FFFF.
    expect(canonicalJson({ '\uffff': 1, '\u{1F600}': 2 })).toBe('{"\u{1F600}":2,"\uffff":1}');
    expect(canonicalJson(JSON.parse('{"__proto__":{"b":1,"a":2},"x":1}'))).toBe('{"__proto__":{"a":2,"b":1},"x":1}');
  });

  it('for objects whose names differ after the first, in any order, many times over (shapes are remembered)', () => {
    const objects = [{ a: 1, b: 2 }, { a: 1, c: 2 }, { a: 1, b: 2, c: 3 }, { a: 1, c: 3, b: 2 }, { b: 2, a: 1 }, { a: { z: 1, y: [{ b: 1, a: 2 }] } }];
    for (let round = 0; round < 3; round++) for (const value of objects) same(value);
    // More shapes than are remembered: written all the same.
    for (let i = 0; i < 600; i++) same({ [`k${i}`]: i, a: { [`n${i % 7}`]: true, m: null } });
    expect(canonicalJson({ a: 1, c: 3, b: 2 })).toBe('{"a":1,"b":2,"c":3}');
  });

  it('for values outside JSON: a Date, holes, symbols, undefined members', () => {
    const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
    for (const value of [{ at }, [1, , 2], [, 1], { s: Symbol('s'), u: undefined, k: 1 }, [undefined, Symbol('s')], { n: new Number(3) }]) same(value);
    expect(canonicalJson({ at })).toBe('{"at":"2026-01-02T03:04:05.000Z"}');
  });

  it('throws where the reference throws or has no text', () => {
    for (const value of [NaN, Infinity, { a: [1, -Infinity] }, undefined, Symbol('s'), () => 1]) {
      expect(() => canonicalJson(value)).toThrow();
    }
  });
});
