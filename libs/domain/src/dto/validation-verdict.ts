import { getMetadataStorage, IS_ISO8601, MAX_LENGTH, ValidationArguments, ValidationTypes, ValidatorOptions } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

type MetadataStorage = ReturnType<typeof getMetadataStorage>;

/** One rule of a property: its metadata and the constraint classes' instances that check it. */
interface Rule {
  metadata: ValidationMetadata;
  /** The instances, taken once from class-validator's container (it keeps one per constraint class). */
  instances: { validate(value: unknown, args: ValidationArguments): unknown }[];
  /** `true` where the rule certainly holds for the value without asking the instances (see QUICK_PASSES). */
  quick?: (value: unknown) => boolean;
}

/** What class-validator runs for one property, in its order: defined rules, conditions, rules, nested values. */
interface PropertyPlan {
  name: string;
  defined: Rule[];
  conditions: ValidationMetadata[];
  rules: Rule[];
  nested: ValidationMetadata[];
}

/** A class's plan, or UNSUPPORTED where class-validator does more than this file repeats (it then decides). */
type Plan = { properties: PropertyPlan[]; allowed: Record<string, true> } | typeof UNSUPPORTED;
const UNSUPPORTED = Symbol('unsupported');

const KNOWN_TYPES = new Set<string>([
  ValidationTypes.CUSTOM_VALIDATION,
  ValidationTypes.NESTED_VALIDATION,
  ValidationTypes.CONDITIONAL_VALIDATION,
  ValidationTypes.WHITELIST,
  ValidationTypes.IS_DEFINED,
]);

/**
 * Says, without class-validator's bookkeeping, whether `validate(object, options)` would find nothing: `true` only
 * where it certainly would; `false` where it would find something, or where this cannot tell (an asynchronous rule,
 * a promise rule, a rule type it does not know, options it does not follow). A request body that passes is then
 * not validated again; any other is, by class-validator itself, which writes the errors. So a `false` costs time,
 * never an answer; a `true` must never be wrong, and the tests hold it to class-validator's verdict on every DTO.
 *
 * Why: class-validator's executor makes an error object per property and per nested object whether or not there
 * is an error, filters each property's rules five times, looks up every rule's constraint instance with a linear
 * search of its container, and strips the empty errors at the end: for a registration's body, about 7 % of the
 * service's CPU samples and more in garbage (docs/platform.md "Performance"). This walks the same metadata (the
 * same look-ups, cached per class by service-kit's validation.pipe.ts `cacheValidationMetadata`), calls the same
 * constraints with the same arguments in class-validator's order, and stops at the first failure.
 */
export class ValidationVerdict {
  private readonly plans = new WeakMap<Record<string, ValidationMetadata[]>, Plan>();

  constructor(private readonly storage: MetadataStorage = getMetadataStorage()) {}

  passes(object: object, options: ValidatorOptions): boolean {
    if (!followed(options)) return false;
    try {
      return this.execute(object, undefined, options);
    } catch {
      // A rule that throws: class-validator runs it again and answers as it does.
      return false;
    }
  }

  /** ValidationExecutor.execute: the class's rules (or the schema's, for a nested value), every property. */
  private execute(object: object, targetSchema: string | undefined, options: ValidatorOptions): boolean {
    const metadatas = this.storage.getTargetValidationMetadatas(object.constructor, targetSchema as string, false, false, undefined);
    // No rules: an unknown value (forbidUnknownValues) or, whitelisted, every member an error; class-validator says.
    if (metadatas.length === 0) return false;
    const plan = this.planOf(this.storage.groupByPropertyName(metadatas));
    if (plan === UNSUPPORTED) return false;
    if (options.whitelist) {
      // forbidNonWhitelisted (followed() requires it): a member without rules is an error.
      for (const name of Object.keys(object)) if (plan.allowed[name] !== true) return false;
    }
    const targetName = object.constructor ? object.constructor.name : (undefined as unknown as string);
    for (const property of plan.properties) {
      const value = (object as Record<string, unknown>)[property.name];
      if (!this.property(object, targetName, value, property, options)) return false;
    }
    return true;
  }

  /** ValidationExecutor.performValidations for a property of a class. */
  private property(object: object, targetName: string, value: unknown, plan: PropertyPlan, options: ValidatorOptions): boolean {
    for (const condition of plan.conditions) {
      if (!(condition.constraints[0] as (object: object, value: unknown) => unknown)(object, value)) return true;
    }
    if (!rulesPass(object, targetName, value, plan.defined)) return false;
    if (!rulesPass(object, targetName, value, plan.rules)) return false;
    return this.nested(value, plan.nested, options);
  }

  /** ValidationExecutor.nestedValidations: each item of an array, Set or Map, or the object by its class's rules. */
  private nested(value: unknown, metadatas: ValidationMetadata[], options: ValidatorOptions): boolean {
    if (value === undefined || metadatas.length === 0) return true;
    for (const metadata of metadatas) {
      if (Array.isArray(value) || value instanceof Set || value instanceof Map) {
        // Each item is validated with all the property's nested rules (and only them); a Map's values in order.
        const items = value instanceof Set ? Array.from(value) : value instanceof Map ? Array.from(value.values()) : value;
        for (const item of items) if (!this.nested(item, metadatas, options)) return false;
        // An item that is undefined passes (nestedValidations returns at once), as in class-validator.
      } else if (value instanceof Object) {
        const targetSchema = typeof metadata.target === 'string' ? metadata.target : metadata.target.name;
        if (!this.execute(value, targetSchema, options)) return false;
      } else {
        return false;
      }
    }
    return true;
  }

  private planOf(grouped: Record<string, ValidationMetadata[]>): Plan {
    let plan = this.plans.get(grouped);
    if (plan === undefined) this.plans.set(grouped, (plan = this.makePlan(grouped)));
    return plan;
  }

  private makePlan(grouped: Record<string, ValidationMetadata[]>): Plan {
    const properties: PropertyPlan[] = [];
    const allowed: Record<string, true> = Object.create(null);
    for (const name of Object.keys(grouped)) {
      const all = grouped[name];
      if (all.length > 0) allowed[name] = true;
      if (all.some((m) => !KNOWN_TYPES.has(m.type))) return UNSUPPORTED;
      const rule = (metadata: ValidationMetadata): Rule | typeof UNSUPPORTED => {
        const constraints = this.storage.getTargetValidatorConstraints(metadata.constraintCls);
        // A rule's constraint instance is class-validator's (its container keeps one per class); one that may
        // answer with a promise is left to class-validator.
        if (constraints.some((c) => c.async)) return UNSUPPORTED;
        return { metadata, instances: constraints.map((c) => c.instance), quick: quickPass(metadata) };
      };
      const defined: Rule[] = [];
      const rules: Rule[] = [];
      for (const metadata of all) {
        if (metadata.type === ValidationTypes.IS_DEFINED || metadata.type === ValidationTypes.CUSTOM_VALIDATION) {
          const made = rule(metadata);
          if (made === UNSUPPORTED) return UNSUPPORTED;
          (metadata.type === ValidationTypes.IS_DEFINED ? defined : rules).push(made);
        }
      }
      properties.push({
        name,
        defined,
        conditions: all.filter((m) => m.type === ValidationTypes.CONDITIONAL_VALIDATION),
        rules,
        nested: all.filter((m) => m.type === ValidationTypes.NESTED_VALIDATION),
      });
    }
    return { properties, allowed };
  }
}

/**
 * The options this file follows: the global pipe's (whitelist with forbidNonWhitelisted, or no whitelist), no
 * groups, no `always`/`strictGroups`, no skipping of missing properties. Any other is left to class-validator.
 */
function followed(options: ValidatorOptions): boolean {
  return (
    (!options.whitelist || options.forbidNonWhitelisted === true) &&
    !(options.groups && options.groups.length > 0) &&
    !options.always &&
    !options.strictGroups &&
    !options.skipMissingProperties &&
    !options.skipNullProperties &&
    !options.skipUndefinedProperties
  );
}

/** ValidationExecutor.customValidations, for a verdict: every rule whose `validateIf` holds is met. */
function rulesPass(object: object, targetName: string, value: unknown, rules: Rule[]): boolean {
  for (const { metadata, instances, quick } of rules) {
    if (metadata.validateIf && !metadata.validateIf(object, value)) continue;
    if (quick !== undefined && !metadata.each && quick(value)) continue;
    for (const instance of instances) {
      const args: ValidationArguments = {
        targetName,
        property: metadata.propertyName,
        object,
        value,
        constraints: metadata.constraints,
      };
      if (!metadata.each || !(Array.isArray(value) || value instanceof Set || value instanceof Map)) {
        const valid = instance.validate(value, args);
        if (isPromise(valid) || !valid) return false;
      } else {
        const items = value instanceof Map ? Array.from(value.values()) : Array.isArray(value) ? value : Array.from(value);
        for (const item of items) {
          const valid = instance.validate(item, args);
          if (isPromise(valid) || !valid) return false;
        }
      }
    }
  }
  return true;
}

const isPromise = (value: unknown): boolean => value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function';

/**
 * Two of class-validator's own rules, by the name it registers them under, answered for the values requests carry
 * most: a string no longer than MaxLength's bound (validator's isLength counts a surrogate pair or a presentation
 * sequence as one, so a string's code units are never fewer than its length), and ISO 8601 date-time text in the
 * calendar form `YYYY-MM-DD[THH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)]` naming a day that exists, year 1000 to 9999,
 * which validator's pattern accepts and its strict calendar check (`strict: true`) keeps (that check writes the year as
 * a number again: years before 1000 are its own business). Anything else is asked of the rule as before,
 * so `false` here costs only time. The rule's own check was 2 % of a registration's CPU (bench platform, 2026-12-06):
 * validator builds a Date to check the day, and tests a long pattern.
 */
const QUICK_PASSES: Record<string, (constraints: unknown[]) => ((value: unknown) => boolean) | undefined> = {
  [MAX_LENGTH]: ([max]) => (typeof max === 'number' ? (value) => typeof value === 'string' && value.length <= max : undefined),
  [IS_ISO8601]: ([options]) => (options === undefined || (typeof options === 'object' && options !== null) ? isCalendarDateTime : undefined),
};

function quickPass(metadata: ValidationMetadata): ((value: unknown) => boolean) | undefined {
  const make = metadata.type === ValidationTypes.CUSTOM_VALIDATION && metadata.name !== undefined ? QUICK_PASSES[metadata.name] : undefined;
  return make?.(metadata.constraints ?? []);
}

const CALENDAR_DATE_TIME =
  /^([1-9]\d{3})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?:T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d))?$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Calendar ISO 8601 text (above) whose day exists in its month, February 29 in leap years (Gregorian). */
export function isCalendarDateTime(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const m = CALENDAR_DATE_TIME.exec(value);
  if (m === null) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (day <= DAYS_IN_MONTH[month - 1]) return true;
  return month === 2 && day === 29 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}
