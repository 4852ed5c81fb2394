import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

let validate: ValidateFunction | undefined;

/** GS1's EPCIS 2.0 JSON Schema (fixtures/epcis), compiled once per test file. */
function validator(): ValidateFunction {
  if (!validate) {
    const schema = JSON.parse(readFileSync(path.join(__dirname, 'fixtures', 'epcis', 'EPCIS-JSON-Schema.json'), 'utf8')) as object;
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    validate = ajv.compile(schema);
  }
  return validate;
}

/** The schema's complaints about `doc` (empty when it is a valid EPCIS 2.0 document). */
export function epcisErrors(doc: unknown): string[] {
  const v = validator();
  if (v(doc)) return [];
  return (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}
