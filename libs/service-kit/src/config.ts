import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';

/** Thrown at start-up when the environment does not satisfy a service's config class. */
export class ConfigError extends Error {
  constructor(
    readonly service: string,
    readonly problems: string[],
  ) {
    super(`${service}: invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

function flatten(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((e) => {
    const name = `${prefix}${e.property}`;
    const own = Object.values(e.constraints ?? {}).map((m) => `${name}: ${m} (got ${JSON.stringify(e.value)})`);
    return [...own, ...flatten(e.children ?? [], `${name}.`)];
  });
}

/**
 * Reads a service's config from an env-like map: class-validator decorators on `cls` declare each variable,
 * class-transformer converts strings (numbers, booleans). Unknown variables are ignored. Any failure throws a
 * ConfigError whose message names every bad variable.
 */
export function loadConfig<T extends object>(
  service: string,
  cls: new () => T,
  env: Record<string, string | undefined>,
): T {
  const cleaned: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') cleaned[k] = v;
  const instance = plainToInstance(cls, cleaned, { enableImplicitConversion: true, exposeDefaultValues: true });
  const errors = validateSync(instance, { whitelist: false, forbidUnknownValues: false });
  if (errors.length > 0) throw new ConfigError(service, flatten(errors));
  return instance;
}
