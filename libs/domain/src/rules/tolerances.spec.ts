import { TOLERANCES, VERIFY_CARAT_TOLERANCE, VERIFY_CARAT_TOLERANCE_REPORTED, withinTolerance } from './tolerances';

describe('TOLERANCES', () => {
  it('holds the spec limits as decimal strings', () => {
    expect(TOLERANCES).toEqual({
      estimated_weight_crt: '0.02',
      girdle_avg_mm: '0.5',
      table_avg_mm: '0.143',
      total_depth_mm: '0.073',
      crown_angle_avg_deg: '1.1',
      pavilion_angle_avg_deg: '0.27',
    });
    expect(Object.isFrozen(TOLERANCES)).toBe(true);
  });

  it('verify compares with 0.02 and reports "0.020"', () => {
    expect(VERIFY_CARAT_TOLERANCE).toBe('0.02');
    expect(VERIFY_CARAT_TOLERANCE_REPORTED).toBe('0.020');
  });
});

describe('withinTolerance', () => {
  it('matches exactly at the bound, where binary floats would not', () => {
    expect(1.02 - 1.0 <= 0.02).toBe(false); // the float trap this guards against
    expect(withinTolerance(1.0, 1.02, 0.02)).toBe(true);
    expect(withinTolerance('1.00', '1.02', '0.02')).toBe(true);
    expect(withinTolerance('1.02', '1.00', TOLERANCES.estimated_weight_crt)).toBe(true);
    expect(0.77 - 0.7 <= 0.07).toBe(false);
    expect(withinTolerance(0.77, 0.7, 0.07)).toBe(true);
  });

  it('matches just inside and not just outside', () => {
    expect(withinTolerance('1.00', '1.0199999', '0.02')).toBe(true);
    expect(withinTolerance('1.00', '1.0200001', '0.02')).toBe(false);
    expect(withinTolerance('1.00', '0.98', '0.02')).toBe(true);
    expect(withinTolerance('1.00', '0.979', '0.02')).toBe(false);
  });

  it.each(Object.entries(TOLERANCES))('%s: at bound in, one step past out', (_key, tol) => {
    const base = '10';
    const at = (Number(base) + Number(tol)).toString();
    expect(withinTolerance(base, at, tol)).toBe(true);
    expect(withinTolerance(base, `${at}1`, tol)).toBe(false);
  });

  it('handles float-sum inputs as the numbers they really are', () => {
    expect(withinTolerance(0.1 + 0.2, 0.3, 0)).toBe(false); // 0.30000000000000004
    expect(withinTolerance(0.1 + 0.2, '0.3', '0.0000000000000001')).toBe(true);
    expect(withinTolerance('0.3', '0.1', '0.2')).toBe(true);
  });

  it('equal values match with zero tolerance', () => {
    expect(withinTolerance('6.50', 6.5, '0')).toBe(true);
  });
});
