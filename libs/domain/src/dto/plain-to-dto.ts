import { ClassConstructor, plainToInstance } from 'class-transformer';
import type { MetadataStorage } from 'class-transformer/types/MetadataStorage';
import type { TypeMetadata } from 'class-transformer/types/interfaces/metadata/type-metadata.interface';

// class-transformer keeps its metadata in a storage its index does not export (as libs/service-kit array-bounds.ts).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: MetadataStorage };

/** Thrown inside the walk where only class-transformer itself can say what it makes. */
class TransformerOnly extends Error {}
const TRANSFORMER_ONLY = new TransformerOnly();

/** What class-transformer's storage holds per class (its private maps, read here, never written). */
interface Storage {
  _typeMetadatas?: Map<Function, Map<string, TypeMetadata>>;
  _transformMetadatas?: Map<Function, Map<string, unknown[]>>;
  getStrategy(target: Function): string;
  getExposedMetadatas(target: Function): unknown[];
  getExcludedMetadatas(target: Function): unknown[];
  getAncestors(target: Function): Function[];
}
const storage = defaultMetadataStorage as unknown as Storage;
/** The storage has the shape read here (class-transformer 0.5); otherwise every value goes to class-transformer. */
const readable = storage._typeMetadatas instanceof Map && storage._transformMetadatas instanceof Map;

/** A class's @Type metadata by property (its own over its ancestors', as class-transformer finds them), or null. */
type Plan = Map<string, TypeMetadata> | null;
const plans = new WeakMap<Function, Plan>();

/**
 * The plan of `target`: null where class-transformer would do more than copy members and apply @Type (an @Expose,
 * @Exclude or @Transform on the class or an ancestor, or a class-wide strategy). Read once per class: decorators are
 * applied when the class is declared, before any value can be made an instance of it.
 */
function planOf(target: Function): Plan {
  let plan = plans.get(target);
  if (plan !== undefined) return plan;
  const lineage = [target, ...storage.getAncestors(target)];
  const plain =
    storage.getStrategy(target) === 'none' &&
    storage.getExposedMetadatas(target).length === 0 &&
    storage.getExcludedMetadatas(target).length === 0 &&
    lineage.every((c) => !storage._transformMetadatas!.has(c));
  if (!plain) plan = null;
  else {
    plan = new Map();
    for (const c of lineage) for (const [name, metadata] of storage._typeMetadatas!.get(c) ?? []) if (!plan.has(name)) plan.set(name, metadata);
  }
  plans.set(target, plan);
  return plan;
}

/**
 * class-transformer's transform (PLAIN_TO_CLASS, default options) for a JSON value, in its order of steps: arrays
 * item by item; String, Number, Boolean and Date targets converted; objects copied member by member into a new
 * instance of their @Type (a plain object without one), leaving out `__proto__`, `constructor` and the members the
 * instance takes from its prototype (methods, getters). Anything else throws TRANSFORMER_ONLY.
 */
function transform(value: unknown, targetType: Function | undefined, arrayType: Function | undefined): unknown {
  if (Array.isArray(value)) {
    // instantiateArrayType: an Array or an Object target makes an array; a Set or anything else is not followed here.
    if (arrayType !== undefined && arrayType !== Array && arrayType !== Object) throw TRANSFORMER_ONLY;
    const items: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) throw TRANSFORMER_ONLY; // forEach skips a hole
      items.push(transform(value[i], targetType, undefined));
    }
    return items;
  }
  const isObject = typeof value === 'object' && value !== null;
  if (isObject) {
    // Dates, Maps, Sets, bytes, promises, class instances: not made by JSON.parse. Without a @Type, an own
    // `constructor` member would be taken for the object's class.
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) throw TRANSFORMER_ONLY;
    if (targetType === undefined && Object.prototype.hasOwnProperty.call(value, 'constructor')) throw TRANSFORMER_ONLY;
  } else if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') throw TRANSFORMER_ONLY;
  if (targetType === String) return value === null || value === undefined ? value : String(value);
  if (targetType === Number) return value === null || value === undefined ? value : Number(value);
  if (targetType === Boolean) return value === null || value === undefined ? value : Boolean(value);
  if (targetType === Date) return value === null || value === undefined ? value : new Date(value as string);
  if (targetType === Buffer || targetType === Map || targetType === Set) throw TRANSFORMER_ONLY;
  if (!isObject) return value;
  const source = value as Record<string, unknown>;
  if (typeof source.then === 'function') throw TRANSFORMER_ONLY; // taken for a promise
  const plan = targetType === undefined ? null : planOf(targetType);
  if (targetType !== undefined && plan === null) throw TRANSFORMER_ONLY;
  const target = (targetType === undefined ? {} : new (targetType as new () => object)()) as Record<string, unknown>;
  const prototype = (target.constructor as Function | undefined)?.prototype as object | undefined;
  for (const key of Object.keys(source)) {
    if (key === '__proto__' || key === 'constructor') continue;
    const sub = source[key];
    let type: Function | undefined;
    let memberArrayType: Function | undefined;
    const metadata = plan?.get(key);
    if (metadata !== undefined) {
      if (metadata.options?.discriminator || metadata.reflectedType === Map) throw TRANSFORMER_ONLY;
      type = (metadata.typeFunction ? metadata.typeFunction({ newObject: target, object: source, property: key }) : metadata.reflectedType) as
        Function | undefined;
      if (Array.isArray(sub)) memberArrayType = metadata.reflectedType as Function | undefined;
    }
    if (prototype) {
      const descriptor = Object.getOwnPropertyDescriptor(prototype, key);
      if ((descriptor && !descriptor.set) || target[key] instanceof Function) continue;
    }
    target[key] = transform(sub, type, memberArrayType);
  }
  return target;
}

/**
 * `plainToInstance(cls, plain)` of class-transformer (default options) for a value made by JSON.parse or a query
 * parser, without its per-member bookkeeping: it looks up the @Expose, @Exclude, @Transform and @Type metadata of
 * every member of every object, through every ancestor class, and builds and filters key lists, a visible part of
 * a registration's CPU and garbage (docs/platform.md "Performance"). Here each class's @Type metadata is read once,
 * and a class with any other class-transformer decorator, or any value JSON does not make, is left to
 * class-transformer itself, which then makes the whole instance. Tests hold every DTO test body and every value the
 * services' validation pipe transforms in a test to class-transformer's result (spec-helpers, the pipe).
 */
export function plainToDto<T extends object>(cls: ClassConstructor<T>, plain: unknown): T {
  if (readable) {
    try {
      return transform(plain, cls, undefined) as T;
    } catch (err) {
      if (err !== TRANSFORMER_ONLY) throw err;
    }
  }
  return plainToInstance(cls, plain) as T;
}
