import { SHIPMENT_TIMESTAMP_PATTERN, formatShipmentTimestamp } from './timestamps';

describe('formatShipmentTimestamp', () => {
  it('writes YYYY-MM-DDTHH:MM+0000 in UTC', () => {
    expect(formatShipmentTimestamp(new Date('2024-03-05T07:09:59.999Z'))).toBe('2024-03-05T07:09+0000');
    expect(formatShipmentTimestamp('2024-12-31T23:30:00-02:00')).toBe('2025-01-01T01:30+0000');
    expect(formatShipmentTimestamp(0)).toBe('1970-01-01T00:00+0000');
  });

  it('matches its pattern', () => {
    expect(formatShipmentTimestamp(new Date())).toMatch(SHIPMENT_TIMESTAMP_PATTERN);
    expect(SHIPMENT_TIMESTAMP_PATTERN.test('2024-03-05T07:09:00Z')).toBe(false);
  });

  it('rejects an invalid date', () => {
    expect(() => formatShipmentTimestamp('nope')).toThrow(RangeError);
  });
});
