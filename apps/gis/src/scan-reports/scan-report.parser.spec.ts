import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  countMarkup,
  DEFAULT_SCAN_REPORT_MAX_BYTES,
  findMarkupDeclaration,
  parseScanReport,
  SCAN_REPORT_MAX_ATTRIBUTES,
  SCAN_REPORT_MAX_ELEMENTS,
} from './scan-report.parser';

const fixture = (name: string) => readFileSync(path.join(__dirname, '../../test/fixtures/scan-reports', name));
const xml = (text: string) => Buffer.from(text, 'utf8');
const report = (inner: string, attrs = 'format="dtp-scan-report"') => xml(`<ScanReport ${attrs}>${inner}</ScanReport>`);
const MEASUREMENTS = '<Measurements><GirdleAverage>6.45</GirdleAverage><TableAverage>3.71</TableAverage><TotalDepth>3.98</TotalDepth></Measurements>';

describe('parseScanReport: good reports', () => {
  it('extracts every value of a full report, as the report writes them', () => {
    expect(parseScanReport(fixture('good-round.xml'))).toEqual({
      outcome: 'parsed',
      values: {
        shape: 'Round',
        estimated_weight_crt: '1.02',
        girdle_avg_mm: '6.45',
        table_avg_mm: '3.71',
        total_depth_mm: '3.98',
        crown_angle_avg_deg: '34.5',
        pavilion_angle_avg_deg: '40.8',
      },
    });
  });

  it('accepts attributes, CDATA, surrounding whitespace and unknown elements; angles absent -> null', () => {
    expect(parseScanReport(fixture('good-no-angles.xml'))).toEqual({
      outcome: 'parsed',
      values: {
        shape: 'Square Emerald',
        estimated_weight_crt: '2.500',
        girdle_avg_mm: '7.1',
        table_avg_mm: '4.9',
        total_depth_mm: '4.35',
        crown_angle_avg_deg: null,
        pavilion_angle_avg_deg: null,
      },
    });
  });

  it('keeps zero angles (the comparison reports them as `zero`)', () => {
    const r = parseScanReport(fixture('good-zero-angles.xml'));
    expect(r.outcome === 'parsed' && [r.values.crown_angle_avg_deg, r.values.pavilion_angle_avg_deg]).toEqual(['0', '0.0']);
  });

  it('accepts a UTF-8 byte order mark', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), fixture('good-round.xml')]);
    expect(parseScanReport(bytes).outcome).toBe('parsed');
  });
});

describe('parseScanReport: values that are not decimals', () => {
  it('reports each bad value with its xpath under the parameter name', () => {
    expect(parseScanReport(fixture('bad-value-not-decimal.xml'))).toEqual({
      outcome: 'parse_error',
      detail: {
        estimated_weight_crt: [{ value: '1.02ct', xpath: '/ScanReport/EstimatedWeight', error_type: 'value_not_a_decimal' }],
        girdle_avg_mm: [{ value: 'six', xpath: '/ScanReport/Measurements/GirdleAverage', error_type: 'value_not_a_decimal' }],
        total_depth_mm: [{ value: '3,98', xpath: '/ScanReport/Measurements/TotalDepth', error_type: 'value_not_a_decimal' }],
        crown_angle_avg_deg: [{ value: '1e2', xpath: '/ScanReport/Measurements/CrownAngleAverage', error_type: 'value_not_a_decimal' }],
      },
    });
  });

  it.each([
    ['empty element', '<TotalDepth></TotalDepth>', ''],
    ['self-closing element', '<TotalDepth/>', ''],
    ['NaN', '<TotalDepth>NaN</TotalDepth>', 'NaN'],
    ['Infinity', '<TotalDepth>Infinity</TotalDepth>', 'Infinity'],
    ['hex', '<TotalDepth>0x10</TotalDepth>', '0x10'],
    ['leading dot', '<TotalDepth>.5</TotalDepth>', '.5'],
    ['two dots', '<TotalDepth>1.2.3</TotalDepth>', '1.2.3'],
    ['plus sign', '<TotalDepth>+1.2</TotalDepth>', '+1.2'],
  ])('%s is not a decimal', (_name, element, value) => {
    const r = parseScanReport(
      report(
        `<Shape>Round</Shape><EstimatedWeight>1</EstimatedWeight><Measurements><GirdleAverage>1</GirdleAverage><TableAverage>1</TableAverage>${element}</Measurements>`,
      ),
    );
    expect(r).toEqual({
      outcome: 'parse_error',
      detail: { total_depth_mm: [{ value, xpath: '/ScanReport/Measurements/TotalDepth', error_type: 'value_not_a_decimal' }] },
    });
  });

  it('an element holding child elements instead of a value is not a decimal (value null)', () => {
    const r = parseScanReport(report(`<Shape>Round</Shape><EstimatedWeight><Value>1</Value></EstimatedWeight>${MEASUREMENTS}`));
    expect(r).toEqual({
      outcome: 'parse_error',
      detail: { estimated_weight_crt: [{ value: null, xpath: '/ScanReport/EstimatedWeight', error_type: 'value_not_a_decimal' }] },
    });
  });

  it('does not expand entities: &amp; stays literal and is not a decimal', () => {
    const r = parseScanReport(fixture('hostile-entity-in-body.xml'));
    expect(r.outcome).toBe('parse_error');
    expect(r.outcome === 'parse_error' && r.detail.estimated_weight_crt[0].value).toBe('&amp;1.02');
  });
});

describe('parseScanReport: missing required data', () => {
  it('a missing required measurement is missing_data naming its xpath', () => {
    expect(parseScanReport(fixture('bad-missing-required.xml'))).toEqual({
      outcome: 'missing_data',
      generic_error: 'the required element /ScanReport/Measurements/TotalDepth is missing',
    });
  });

  it('a missing Shape is missing_data', () => {
    expect(parseScanReport(report(`<EstimatedWeight>1</EstimatedWeight>${MEASUREMENTS}`)).outcome).toBe('missing_data');
  });

  it('a repeated element is not supported', () => {
    const r = parseScanReport(report(`<Shape>Round</Shape><EstimatedWeight>1</EstimatedWeight><EstimatedWeight>2</EstimatedWeight>${MEASUREMENTS}`));
    expect(r).toEqual({ outcome: 'not_supported', generic_error: 'the element /ScanReport/EstimatedWeight appears more than once' });
  });
});

describe('parseScanReport: other file types and roots', () => {
  it.each([
    ['wrong-root.xml', /root element is <GradingReport>/],
    ['wrong-format-attribute.xml', /format attribute is "other-vendor-v2"/],
    ['wrong-type.json', /not an XML document/],
    ['wrong-type.pdf', /not an XML document|not a UTF-8 XML document/],
    ['wrong-type.png', /not a UTF-8 XML document/],
    ['malformed-unclosed.xml', /not well-formed XML/],
    ['malformed-mismatched.xml', /not well-formed XML/],
    ['malformed-two-roots.xml', /not well-formed XML/],
  ])('%s is not supported', (file, message) => {
    const r = parseScanReport(fixture(file));
    expect(r.outcome).toBe('not_supported');
    expect(r.outcome === 'not_supported' && r.generic_error).toMatch(message);
  });

  it('an empty file and a whitespace-only file are not supported', () => {
    expect(parseScanReport(Buffer.alloc(0))).toEqual({ outcome: 'not_supported', generic_error: 'the scan report is empty' });
    expect(parseScanReport(xml('   \n ')).outcome).toBe('not_supported');
  });

  it('a root without the format attribute is not supported', () => {
    const r = parseScanReport(report(`<Shape>Round</Shape>`, 'version="1"'));
    expect(r).toEqual({ outcome: 'not_supported', generic_error: 'the <ScanReport> format attribute is missing; expected "dtp-scan-report"' });
  });
});

describe('parseScanReport: hostile input', () => {
  it.each(['hostile-xxe-system.xml', 'hostile-xxe-parameter.xml', 'hostile-billion-laughs.xml'])(
    '%s is refused before parsing (markup declaration)',
    (file) => {
      const r = parseScanReport(fixture(file));
      expect(r.outcome).toBe('not_supported');
      expect(r.outcome === 'not_supported' && r.generic_error).toMatch(/markup declaration \(<!(DOCTYPE|doctype)\); DTDs and entities are not accepted/);
      // Nothing from /etc/passwd or any expansion can appear in the answer.
      expect(JSON.stringify(r)).not.toMatch(/root:|lollol/);
    },
  );

  it('refuses a bare ENTITY / ELEMENT declaration without a DOCTYPE, and a conditional section', () => {
    for (const decl of ['<!ENTITY a "b">', '<!ELEMENT ScanReport ANY>', '<![INCLUDE[ x ]]>']) {
      const r = parseScanReport(xml(`<?xml version="1.0"?>${decl}<ScanReport format="dtp-scan-report"/>`));
      expect(r.outcome).toBe('not_supported');
    }
  });

  it('ignores declarations-looking text inside comments and CDATA (they are not markup)', () => {
    const body = `<!-- <!DOCTYPE x> --><ScanReport format="dtp-scan-report"><Shape>Round</Shape><EstimatedWeight>1</EstimatedWeight>${MEASUREMENTS}<Note><![CDATA[<!ENTITY x "y">]]></Note></ScanReport>`;
    expect(parseScanReport(xml(body)).outcome).toBe('parsed');
    expect(findMarkupDeclaration(body)).toBeNull();
  });

  it('deep nesting (10,000 levels) fails fast as not supported', () => {
    const started = Date.now();
    const r = parseScanReport(fixture('hostile-deep-nesting.xml'));
    expect(r.outcome).toBe('not_supported');
    expect(r.outcome === 'not_supported' && r.generic_error).toMatch(/Maximum nested tags exceeded/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('nesting as deep as the size cap allows (about 700,000 levels) does not overflow the stack', () => {
    const depth = 700_000;
    const body = `<ScanReport format="dtp-scan-report">${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}</ScanReport>`;
    expect(body.length).toBeLessThanOrEqual(DEFAULT_SCAN_REPORT_MAX_BYTES);
    const r = parseScanReport(xml(body));
    expect(r.outcome).toBe('not_supported');
  });

  it('a huge text node within the size cap is parsed (and an over-long value is not a decimal, shown truncated)', () => {
    const notes = 'x'.repeat(4 * 1024 * 1024);
    const ok = parseScanReport(report(`<Notes>${notes}</Notes><Shape>Round</Shape><EstimatedWeight>1</EstimatedWeight>${MEASUREMENTS}`));
    expect(ok.outcome).toBe('parsed');
    const digits = '1'.repeat(3 * 1024 * 1024);
    const bad = parseScanReport(report(`<Shape>Round</Shape><EstimatedWeight>${digits}</EstimatedWeight>${MEASUREMENTS}`));
    expect(bad.outcome).toBe('parse_error');
    const value = bad.outcome === 'parse_error' ? bad.detail.estimated_weight_crt[0].value : null;
    expect(value?.length).toBeLessThan(100);
  });

  it('caps elements and attributes before parsing: 100,000 attributes in 1.1 MB are refused in a linear scan', () => {
    const attrs = Array.from({ length: 100_000 }, (_, i) => `a${i}="1"`).join(' ');
    const manyAttributes = report(`<Shape ${attrs}>Round</Shape><EstimatedWeight>1</EstimatedWeight>${MEASUREMENTS}`);
    expect(manyAttributes.length).toBeGreaterThan(1_000_000);
    expect(parseScanReport(manyAttributes)).toEqual({
      outcome: 'not_supported',
      generic_error: `the scan report has more than ${SCAN_REPORT_MAX_ATTRIBUTES} attributes`,
    });
    const manyElements = report(`${'<x/>'.repeat(SCAN_REPORT_MAX_ELEMENTS)}<Shape>Round</Shape><EstimatedWeight>1</EstimatedWeight>${MEASUREMENTS}`);
    expect(parseScanReport(manyElements)).toEqual({
      outcome: 'not_supported',
      generic_error: `the scan report has more than ${SCAN_REPORT_MAX_ELEMENTS} elements`,
    });
    // Just under both caps it is parsed as usual.
    const under = Array.from({ length: SCAN_REPORT_MAX_ATTRIBUTES - 2 }, (_, i) => `a${i}="1"`).join(' ');
    expect(parseScanReport(report(`<Notes ${under}/><Shape>Round</Shape><EstimatedWeight>1</EstimatedWeight>${MEASUREMENTS}`)).outcome).toBe('parsed');
    // The comment's '<e' counts too (the scan errs on the safe side); 'x = "y"' in text is no attribute.
    expect(countMarkup('<a b="1" c=\'2\'><d/>x = "y"</a><!-- <e --></a>')).toEqual({ elements: 3, attributes: 2 });
  });

  it('a report past the size cap is refused without parsing', () => {
    const big = Buffer.alloc(DEFAULT_SCAN_REPORT_MAX_BYTES + 1, 0x20);
    expect(parseScanReport(big)).toEqual({
      outcome: 'not_supported',
      generic_error: `the scan report is larger than the ${DEFAULT_SCAN_REPORT_MAX_BYTES} bytes accepted`,
    });
  });

  it('an element named __proto__ is refused and pollutes nothing', () => {
    const r = parseScanReport(report(`<__proto__><polluted>yes</polluted></__proto__><Shape>Round</Shape><EstimatedWeight>1</EstimatedWeight>${MEASUREMENTS}`));
    expect(r.outcome).toBe('not_supported');
    expect(r.outcome === 'not_supported' && r.generic_error).toMatch(/prototype pollution/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
