import { DIAMOND_ID_PATTERN, isDiamondId, isFileHash, isGradingId, isUuid, newDiamondId, newEventId, newLegacyId, newVersionId } from './ids';

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

  it.each([
    ['newEventId', newEventId],
    ['newLegacyId', newLegacyId],
  ])('%s is a UUIDv7 of the current time, unique, and rising from one to the next', (_name, newId) => {
    const since = Date.now();
    const ids = Array.from({ length: 1000 }, () => newId());
    const until = Date.now();
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(isUuid(id)).toBe(true);
      const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
      expect(ms).toBeGreaterThanOrEqual(since);
      expect(ms).toBeLessThanOrEqual(until);
    }
    expect(new Set(ids).size).toBe(1000);
    expect([...ids].sort()).toEqual(ids);
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

describe('path id formats', () => {
  const hostile = ['', '\u0000abc', 'a\u0000', '../etc', "x' OR '1'='1", 'a b', 'a\nb', '\ud800', '💎', 'a'.repeat(4096)];
  it('isFileHash: 64 lowercase hex only', () => {
    expect(isFileHash('0123456789abcdef'.repeat(4))).toBe(true);
    for (const bad of [...hostile, 'F'.repeat(64), 'f'.repeat(63), 'f'.repeat(65), 'g'.repeat(64)]) expect(isFileHash(bad)).toBe(false);
  });
  it('isUuid: canonical text form', () => {
    expect(isUuid('00000000-0000-4000-8000-000000000000')).toBe(true);
    expect(isUuid('ABCDEF00-0000-4000-8000-000000000000')).toBe(true);
    for (const bad of [...hostile, '00000000000040008000000000000000', '00000000-0000-4000-8000-00000000000g']) expect(isUuid(bad)).toBe(false);
  });
  it('isGradingId: UUIDs and lab ids in a safe alphabet, 1 to 128 characters', () => {
    for (const ok of ['00000000-0000-4000-8000-000000000000', 'g1', 'gis-01hzzz', 'LAB:2024.77_a', 'x'.repeat(128)]) expect(isGradingId(ok)).toBe(true);
    for (const bad of [...hostile, '-leading', '.x', 'x'.repeat(129), 'a/b', 'a%00']) expect(isGradingId(bad)).toBe(false);
  });
});
