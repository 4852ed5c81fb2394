import type { ValidationError } from 'class-validator';

/** One entry of a 422 body `{"detail": [{loc, msg, type}]}` (DESIGN.md "Platform: errors"). */
export interface ValidationDetailItem {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/**
 * Flattens class-validator errors into `detail` entries, one per failed constraint, with `loc` the path
 * to the field (array indices as numbers), prefixed with `root` (e.g. ['body'] or ['query']).
 */
export function toValidationDetail(
  errors: readonly ValidationError[],
  root: (string | number)[] = ['body'],
): ValidationDetailItem[] {
  const out: ValidationDetailItem[] = [];
  const walk = (list: readonly ValidationError[], path: (string | number)[]) => {
    for (const error of list) {
      const key = /^\d+$/.test(error.property) ? Number(error.property) : error.property;
      const loc = [...path, key];
      for (const [type, msg] of Object.entries(error.constraints ?? {})) out.push({ loc, msg, type });
      if (error.children?.length) walk(error.children, loc);
    }
  };
  walk(errors, root);
  return out;
}
