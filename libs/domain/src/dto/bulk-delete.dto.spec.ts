import { BulkDeleteEntryDto, BulkDeleteRequestDto } from './bulk-delete.dto';
import { failedPaths, messages, validatePlain } from './spec-helpers';

const entries = (n: number) => Array.from({ length: n }, (_, i) => ({ diamond_id: `d${i}` }));

describe('BulkDeleteRequestDto', () => {
  it('accepts 1 and 1000 entries', () => {
    expect(failedPaths(BulkDeleteRequestDto, { diamonds: entries(1) })).toEqual([]);
    const { errors, instance } = validatePlain(BulkDeleteRequestDto, { diamonds: entries(1000) });
    expect(errors).toEqual([]);
    expect(instance.diamonds[0]).toBeInstanceOf(BulkDeleteEntryDto);
  });

  it('rejects 1001 entries naming the limit', () => {
    expect(failedPaths(BulkDeleteRequestDto, { diamonds: entries(1001) })).toEqual(['diamonds']);
    expect(messages(BulkDeleteRequestDto, { diamonds: entries(1001) })).toEqual(['diamonds must contain at most 1000 entries']);
  });

  it('rejects an empty list, a missing list and a non-array', () => {
    expect(failedPaths(BulkDeleteRequestDto, { diamonds: [] })).toEqual(['diamonds']);
    expect(failedPaths(BulkDeleteRequestDto, {})).toEqual(['diamonds']);
    expect(failedPaths(BulkDeleteRequestDto, { diamonds: 'd1' })[0]).toBe('diamonds');
  });

  it('requires diamond_id as a string in each entry', () => {
    expect(failedPaths(BulkDeleteRequestDto, { diamonds: [{ diamond_id: 'x' }, {}] })).toEqual(['diamonds.1.diamond_id']);
    expect(failedPaths(BulkDeleteRequestDto, { diamonds: [{ diamond_id: 5 }] })).toEqual(['diamonds.0.diamond_id']);
  });

  it('delete_descendants is an optional boolean (absent means false)', () => {
    expect(failedPaths(BulkDeleteRequestDto, { diamonds: [{ diamond_id: 'x', delete_descendants: true }] })).toEqual([]);
    expect(failedPaths(BulkDeleteRequestDto, { diamonds: [{ diamond_id: 'x', delete_descendants: 'yes' }] })).toEqual(['diamonds.0.delete_descendants']);
    expect(failedPaths(BulkDeleteRequestDto, { diamonds: [{ diamond_id: 'x', delete_descendants: null }] })).toEqual(['diamonds.0.delete_descendants']);
  });

  it('rejects unknown fields at both levels', () => {
    expect(failedPaths(BulkDeleteRequestDto, { diamonds: entries(1), force: true })).toEqual(['force']);
    expect(failedPaths(BulkDeleteRequestDto, { diamonds: [{ diamond_id: 'x', cascade: true }] })).toEqual(['diamonds.0.cascade']);
  });
});
