import { getMetadataStorage, ValidationArguments, ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import type { MetadataStorage as TransformerMetadataStorage } from 'class-transformer/types/MetadataStorage';
import type { ValidationDetail } from './errors';

// class-transformer keeps @Type metadata in a storage its index does not export.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: TransformerMetadataStorage };

type Condition = (object: unknown, value: unknown) => boolean;

interface ArrayBound {
  property: string;
  max: number;
  meta: ValidationMetadata;
}

/** What the pre-check needs of one DTO class: its `@ArrayMaxSize` members and its nested DTO members. */
interface ClassBounds {
  arrays: ArrayBound[];
  nested: { property: string; type: () => Function | undefined }[];
  /** `@ValidateIf`/`@IsOptional` conditions per member: when one is false, class-validator skips the member. */
  conditions: Map<string, Condition[]>;
}

const cache = new WeakMap<Function, ClassBounds>();
const BUILT_INS = new Set<Function>([Object, Array, String, Number, Boolean, Date, Map, Set, Function]);

function boundsOf(cls: Function): ClassBounds {
  const hit = cache.get(cls);
  if (hit) return hit;
  const bounds: ClassBounds = { arrays: [], nested: [], conditions: new Map() };
  cache.set(cls, bounds);
  const metas = getMetadataStorage().getTargetValidationMetadatas(cls, '', false, false);
  const nested = new Set<string>();
  for (const meta of metas) {
    const property = meta.propertyName;
    if (meta.type === ValidationTypes.CONDITIONAL_VALIDATION && typeof meta.constraints?.[0] === 'function') {
      bounds.conditions.set(property, [...(bounds.conditions.get(property) ?? []), meta.constraints[0] as Condition]);
    } else if (meta.name === 'arrayMaxSize' && !meta.each && typeof meta.constraints?.[0] === 'number') {
      bounds.arrays.push({ property, max: meta.constraints[0], meta });
    } else if (meta.type === ValidationTypes.NESTED_VALIDATION && !nested.has(property)) {
      nested.add(property);
      bounds.nested.push({ property, type: nestedType(cls, property) });
    }
  }
  return bounds;
}

/** The class of a nested member: its `@Type(() => X)`, else its design type when that is a class of ours. */
function nestedType(cls: Function, property: string): () => Function | undefined {
  return () => {
    const declared = defaultMetadataStorage.findTypeMetadata(cls, property);
    if (declared && !declared.options?.discriminator) {
      const t = declared.typeFunction() as unknown;
      if (typeof t === 'function') return t;
    }
    const design = Reflect.getMetadata?.('design:type', cls.prototype, property) as unknown;
    return typeof design === 'function' && !BUILT_INS.has(design) ? design : undefined;
  };
}

function skipped(bounds: ClassBounds, object: Record<string, unknown>, property: string): boolean {
  const conditions = bounds.conditions.get(property);
  if (!conditions) return false;
  try {
    return conditions.some((c) => !c(object, object[property]));
  } catch {
    return true;
  }
}

function messageOf(bound: ArrayBound, cls: Function, object: Record<string, unknown>): string {
  const { meta, property, max } = bound;
  const length = (object[property] as unknown[]).length;
  if (typeof meta.message === 'function') {
    const args: ValidationArguments = { value: object[property], constraints: meta.constraints, targetName: cls.name, object, property };
    return meta.message(args);
  }
  const template = typeof meta.message === 'string' && meta.message !== '' ? meta.message : '$property must contain no more than $constraint1 elements';
  return template
    .replace(/\$property/g, property)
    .replace(/\$constraint1/g, String(max))
    .replace(/\$target/g, cls.name)
    .replace(/\$value/g, `a list of ${length} items`);
}

/**
 * The first array of `value` longer than its `@ArrayMaxSize`, walking the DTO `cls` and its nested DTOs
 * (`@ValidateNested` with `@Type`), as one 422 detail entry `{loc, msg, type: "too_long"}`; null when none is.
 * Runs before class-transformer and class-validator, so a body with 100,000 elements where 1,000 are allowed
 * is refused without building and validating 100,000 objects (and without 100,000 error entries).
 */
export function arrayOverflow(value: unknown, cls: Function, root: (string | number)[]): ValidationDetail | null {
  const pending: { object: unknown; cls: Function; loc: (string | number)[]; depth: number }[] = [{ object: value, cls, loc: root, depth: 0 }];
  for (let next = 0; next < pending.length; next++) {
    const { object, cls: type, loc, depth } = pending[next];
    if (typeof object !== 'object' || object === null || Array.isArray(object) || depth > 64) continue;
    const record = object as Record<string, unknown>;
    const bounds = boundsOf(type);
    for (const bound of bounds.arrays) {
      const member = record[bound.property];
      if (Array.isArray(member) && member.length > bound.max && !skipped(bounds, record, bound.property)) {
        return { loc: [...loc, bound.property], msg: messageOf(bound, type, record), type: 'too_long' };
      }
    }
    for (const { property, type: typeOf } of bounds.nested) {
      const member = record[property];
      if (typeof member !== 'object' || member === null || skipped(bounds, record, property)) continue;
      const nestedCls = typeOf();
      if (!nestedCls || boundsOf(nestedCls).arrays.length + boundsOf(nestedCls).nested.length === 0) continue;
      if (Array.isArray(member)) member.forEach((item, i) => pending.push({ object: item, cls: nestedCls, loc: [...loc, property, i], depth: depth + 1 }));
      else pending.push({ object: member, cls: nestedCls, loc: [...loc, property], depth: depth + 1 });
    }
  }
  return null;
}
