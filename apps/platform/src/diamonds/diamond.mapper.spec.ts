import { DIAMOND_V1_REQUIRED_FIELDS } from '@dtp/domain';
import { toDiamondV1 } from './diamond.mapper';
import { sampleRow } from '../../test/diamond.fixture';

describe('toDiamondV1', () => {
  it('maps a stored row to a record with every required member and no internal columns', () => {
    const record = toDiamondV1(sampleRow());
    for (const f of DIAMOND_V1_REQUIRED_FIELDS) expect(record).toHaveProperty(f);
    expect(record).toMatchObject({
      id: '7d7f9a3e-2c1b-4f5e-8a9b-0c1d2e3f4a5b',
      sight_no: 12,
      sight_year: 2024,
      system_timestamp: '2024-03-01T08:00:00.000Z',
      participant_timestamp: '2024-03-01T10:00:00+02:00',
      is_current: true,
      schema_version: '1',
      grading: null,
      archived_at: null,
    });
    for (const internal of ['uploader_id', 'holder_id', 'box_scope', 'revision', 'legacy_id', 'provenance_pending', 'created_at']) {
      expect(record).not.toHaveProperty(internal);
    }
  });

  it('shows the active graded measurement as a one-element grading array', () => {
    const active = { id: 'g1', is_active: true, is_selectable: true, source: 'user' as const, carats: '1.01' };
    expect(toDiamondV1(sampleRow(), active).grading).toEqual([active]);
  });

  it('maps the legacy parent id and dates that are set', () => {
    const record = toDiamondV1(
      sampleRow({ legacy_parent_id: '1d7f9a3e-2c1b-4f5e-8a9b-0c1d2e3f4a5b', archived_at: new Date('2024-05-01T00:00:00Z'), sight_no: null }),
    );
    expect(record.parent_id).toBe('1d7f9a3e-2c1b-4f5e-8a9b-0c1d2e3f4a5b');
    expect(record.archived_at).toBe('2024-05-01T00:00:00.000Z');
    expect(record.sight_no).toBeNull();
  });
});
