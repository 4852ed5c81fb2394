import { DIAMOND_ID_PATTERN, isDiamondId, newDiamondId, newVersionId } from './ids';

describe('ids', () => {
  it('DIAMOND_ID_PATTERN is 20..98 lowercase letters and digits', () => {
    expect(DIAMOND_ID_PATTERN.source).toBe('^[a-z0-9]{20,98}$');
    expect(isDiamondId('a'.repeat(20))).toBe(true);
    expect(isDiamondId('9'.repeat(98))).toBe(true);
    expect(isDiamondId('a'.repeat(19))).toBe(false);
    expect(isDiamondId('a'.repeat(99))).toBe(false);
    expect(isDiamondId('A'.repeat(26))).toBe(false);
    expect(isDiamondId('abcdefghij-klmnopqrstu')).toBe(false);
    expect(isDiamondId(12345678901234567890)).toBe(false);
  });

  it('newDiamondId is a lowercased 26-character ULID, unique and sortable', () => {
    const ids = Array.from({ length: 1000 }, () => newDiamondId());
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-hjkmnp-tv-z]{26}$/);
      expect(isDiamondId(id)).toBe(true);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('newVersionId changes every time', () => {
    const a = newVersionId();
    const b = newVersionId();
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[0-9a-z]{26}$/);
  });
});
