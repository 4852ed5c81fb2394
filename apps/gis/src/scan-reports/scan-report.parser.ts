import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { ScanReportParseErrorDetail, ScanReportParseErrorEntry } from '@dtp/domain';

/**
 * The scan report parser (DESIGN.md "GIS"): an XML document whose root is
 * `<ScanReport format="dtp-scan-report">` with `Shape`, `EstimatedWeight` and, under `Measurements`,
 * `GirdleAverage`, `TableAverage`, `TotalDepth` and the optional `CrownAngleAverage` and
 * `PavilionAngleAverage`.
 *
 * Safety, in the order applied (see docs/gis.md "Parser safety"):
 * 1. size cap on the raw bytes (checked by the caller before reading the whole blob, and again here);
 * 2. strict UTF-8 decoding (binary files are "not supported", never fed to the XML parser);
 * 3. every markup declaration (`<!DOCTYPE`, `<!ENTITY`, `<!ELEMENT`, `<!ATTLIST`, ...) is refused
 *    BEFORE any parsing: only comments and CDATA sections may start with `<!`. No DTD, so no external
 *    entity (XXE) and no entity expansion (billion laughs) can ever reach the parser;
 * 4. the parser itself runs with `processEntities: false`, `htmlEntities: false` and a nesting cap
 *    (`maxNestedTags`), so a 10,000-level document fails fast instead of exhausting the stack;
 * 5. decimal values longer than MAX_VALUE_LENGTH characters are reported as not decimals;
 * 6. at most SCAN_REPORT_MAX_ELEMENTS elements and SCAN_REPORT_MAX_ATTRIBUTES attributes, counted before parsing.
 * The function is synchronous, pure and never throws for any input.
 */

export const SCAN_REPORT_FORMAT = 'dtp-scan-report';
/** Default cap on a scan report's size (bytes). */
export const DEFAULT_SCAN_REPORT_MAX_BYTES = 5 * 1024 * 1024;
/** Deepest element nesting accepted (the format needs 3). */
export const SCAN_REPORT_MAX_DEPTH = 32;
/** Longest text accepted as one decimal value. */
export const MAX_VALUE_LENGTH = 40;
/**
 * Most elements and attributes a report may have, counted by a linear scan before any parsing (the format needs
 * about ten of each): parsing time is bounded by these, not by what a client uploads (100,000 attributes in a
 * 1.1 MB report once held GIS's event loop for 0.5-0.7 s).
 */
export const SCAN_REPORT_MAX_ELEMENTS = 20_000;
export const SCAN_REPORT_MAX_ATTRIBUTES = 10_000;

/** Decimal text in a scan report: optional minus sign, digits, optional fraction. No exponent. */
const DECIMAL = /^-?\d+(\.\d+)?$/;

/** The values extracted from a supported report; decimals as the report's text (trimmed). */
export interface ScanReportValues {
  /** The report's Shape text (a Shape value; unknown names fall in shape group `Other`). */
  shape: string;
  estimated_weight_crt: string;
  girdle_avg_mm: string;
  table_avg_mm: string;
  total_depth_mm: string;
  crown_angle_avg_deg: string | null;
  pavilion_angle_avg_deg: string | null;
}

export type ScanReportParseOutcome =
  | { outcome: 'parsed'; values: ScanReportValues }
  /** Another file type or root, hostile or malformed XML, over the size cap. */
  | { outcome: 'not_supported'; generic_error: string }
  /** The right format, but a required element is absent. Answered as `scan_report_not_supported`. */
  | { outcome: 'missing_data'; generic_error: string }
  /** A value that is not a decimal. */
  | { outcome: 'parse_error'; detail: ScanReportParseErrorDetail };

interface FieldSpec {
  /** Name used in results and in parse-error details (the validation parameter name). */
  name: Exclude<keyof ScanReportValues, 'shape'>;
  path: readonly string[];
  required: boolean;
}

const FIELDS: readonly FieldSpec[] = [
  { name: 'estimated_weight_crt', path: ['EstimatedWeight'], required: true },
  { name: 'girdle_avg_mm', path: ['Measurements', 'GirdleAverage'], required: true },
  { name: 'table_avg_mm', path: ['Measurements', 'TableAverage'], required: true },
  { name: 'total_depth_mm', path: ['Measurements', 'TotalDepth'], required: true },
  { name: 'crown_angle_avg_deg', path: ['Measurements', 'CrownAngleAverage'], required: false },
  { name: 'pavilion_angle_avg_deg', path: ['Measurements', 'PavilionAngleAverage'], required: false },
];

const xpathOf = (path: readonly string[]) => `/ScanReport/${path.join('/')}`;

const notSupported = (generic_error: string): ScanReportParseOutcome => ({ outcome: 'not_supported', generic_error });

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: false,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  allowBooleanAttributes: false,
  maxNestedTags: SCAN_REPORT_MAX_DEPTH,
});

/**
 * Finds the first `<!` that opens anything but a comment or a CDATA section (a DOCTYPE, ENTITY, ELEMENT,
 * ATTLIST or NOTATION declaration, or a conditional section). Case-insensitive. Returns its text or null.
 */
export function findMarkupDeclaration(text: string): string | null {
  let i = text.indexOf('<!');
  while (i !== -1) {
    if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end === -1) return null; // unterminated comment: malformed, the validator reports it
      i = text.indexOf('<!', end + 3);
      continue;
    }
    if (text.startsWith('<![CDATA[', i)) {
      const end = text.indexOf(']]>', i + 9);
      if (end === -1) return null;
      i = text.indexOf('<!', end + 3);
      continue;
    }
    const match = /^<!\s*([A-Za-z[]*)/.exec(text.slice(i, i + 40));
    return `<!${match?.[1] ?? ''}`;
  }
  return null;
}

/**
 * Counts element start tags (`<` followed by a name character) and attribute assignments (`="` or `='`) in one
 * pass without parsing; text that merely looks like them counts too, which only errs on the safe side.
 */
export function countMarkup(text: string): { elements: number; attributes: number } {
  let elements = 0;
  let attributes = 0;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c === 60 /* < */) {
      const n = text.charCodeAt(i + 1);
      if ((n >= 65 && n <= 90) || (n >= 97 && n <= 122) || n === 95 /* _ */ || n === 58 /* : */ || n > 127) elements++;
    } else if (c === 61 /* = */) {
      const n = text.charCodeAt(i + 1);
      if (n === 34 || n === 39) attributes++;
    }
  }
  return { elements, attributes };
}

/** Text of an element value, or undefined when absent; objects (child elements, attributes) give null. */
function textAt(root: Record<string, unknown>, path: readonly string[]): { present: boolean; text: string | null; repeated: boolean } {
  let node: unknown = root;
  for (const step of path) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return { present: false, text: null, repeated: false };
    const next = (node as Record<string, unknown>)[step];
    if (next === undefined) return { present: false, text: null, repeated: false };
    if (Array.isArray(next)) return { present: true, text: null, repeated: true };
    node = next;
  }
  if (typeof node === 'string') return { present: true, text: node, repeated: false };
  if (typeof node === 'object' && node !== null) {
    const text = (node as Record<string, unknown>)['#text'];
    const children = Object.keys(node).filter((k) => k !== '#text' && !k.startsWith('@_'));
    if (children.length === 0) return { present: true, text: typeof text === 'string' ? text : '', repeated: false };
  }
  return { present: true, text: null, repeated: false };
}

const preview = (value: string): string => (value.length > MAX_VALUE_LENGTH ? `${value.slice(0, MAX_VALUE_LENGTH)}...` : value);

/** Parses a scan report's bytes. Never throws. */
export function parseScanReport(bytes: Uint8Array, maxBytes: number = DEFAULT_SCAN_REPORT_MAX_BYTES): ScanReportParseOutcome {
  if (bytes.byteLength === 0) return notSupported('the scan report is empty');
  if (bytes.byteLength > maxBytes) {
    return notSupported(`the scan report is larger than the ${maxBytes} bytes accepted`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return notSupported('the scan report is not a UTF-8 XML document (binary or another file type)');
  }
  const start = text.search(/\S/);
  if (start === -1 || text[start] !== '<') return notSupported('the scan report is not an XML document');

  const declaration = findMarkupDeclaration(text);
  if (declaration !== null) {
    return notSupported(`the scan report contains a markup declaration (${declaration}); DTDs and entities are not accepted`);
  }

  const counted = countMarkup(text);
  if (counted.elements > SCAN_REPORT_MAX_ELEMENTS) {
    return notSupported(`the scan report has more than ${SCAN_REPORT_MAX_ELEMENTS} elements`);
  }
  if (counted.attributes > SCAN_REPORT_MAX_ATTRIBUTES) {
    return notSupported(`the scan report has more than ${SCAN_REPORT_MAX_ATTRIBUTES} attributes`);
  }

  let doc: Record<string, unknown>;
  try {
    const valid = XMLValidator.validate(text, { allowBooleanAttributes: false });
    if (valid !== true) {
      return notSupported(`the scan report is not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
    }
    doc = parser.parse(text) as Record<string, unknown>;
  } catch (err) {
    const message = err instanceof Error ? err.message : 'parser failure';
    return notSupported(`the scan report could not be parsed as XML: ${message.slice(0, 200)}`);
  }

  const roots = Object.keys(doc);
  if (roots.length !== 1 || roots[0] !== 'ScanReport') {
    return notSupported(
      `the root element is ${roots.length === 1 ? `<${roots[0]}>` : 'missing or not unique'}; expected <ScanReport format="${SCAN_REPORT_FORMAT}">`,
    );
  }
  const root = doc.ScanReport;
  if (typeof root !== 'object' || root === null || Array.isArray(root)) {
    return notSupported(`the <ScanReport> element is empty or repeated; expected one <ScanReport format="${SCAN_REPORT_FORMAT}">`);
  }
  const report = root as Record<string, unknown>;
  if (report['@_format'] !== SCAN_REPORT_FORMAT) {
    return notSupported(
      `the <ScanReport> format attribute is ${typeof report['@_format'] === 'string' ? `"${preview(report['@_format'])}"` : 'missing'}; expected "${SCAN_REPORT_FORMAT}"`,
    );
  }

  const shape = textAt(report, ['Shape']);
  if (shape.repeated) return notSupported('the element /ScanReport/Shape appears more than once');
  if (!shape.present || shape.text === null || shape.text === '') {
    return { outcome: 'missing_data', generic_error: 'the required element /ScanReport/Shape is missing or empty' };
  }

  const detail: ScanReportParseErrorDetail = {};
  const values: Partial<Record<FieldSpec['name'], string | null>> = {};
  for (const field of FIELDS) {
    const found = textAt(report, field.path);
    if (found.repeated) return notSupported(`the element ${xpathOf(field.path)} appears more than once`);
    if (!found.present) {
      if (field.required) {
        return { outcome: 'missing_data', generic_error: `the required element ${xpathOf(field.path)} is missing` };
      }
      values[field.name] = null;
      continue;
    }
    const value = found.text;
    if (value === null || value.length > MAX_VALUE_LENGTH || !DECIMAL.test(value)) {
      const entry: ScanReportParseErrorEntry = {
        value: value === null ? null : preview(value),
        xpath: xpathOf(field.path),
        error_type: 'value_not_a_decimal',
      };
      (detail[field.name] ??= []).push(entry);
      continue;
    }
    values[field.name] = value;
  }
  if (Object.keys(detail).length > 0) return { outcome: 'parse_error', detail };

  const required = (name: FieldSpec['name']): string => values[name] ?? '';
  return {
    outcome: 'parsed',
    values: {
      shape: shape.text,
      estimated_weight_crt: required('estimated_weight_crt'),
      girdle_avg_mm: required('girdle_avg_mm'),
      table_avg_mm: required('table_avg_mm'),
      total_depth_mm: required('total_depth_mm'),
      crown_angle_avg_deg: values.crown_angle_avg_deg ?? null,
      pavilion_angle_avg_deg: values.pavilion_angle_avg_deg ?? null,
    },
  };
}
