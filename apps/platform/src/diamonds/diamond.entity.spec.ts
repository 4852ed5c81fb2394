import { entityColumns } from '@dtp/database';
import { platformEntities } from '../entities';
import { DIAMOND_COLUMNS, DIAMOND_JSON_COLUMNS, DiamondEntity } from './diamond.entity';
import { GradedMeasurementEntity } from './graded-measurement.entity';

/** The raw-SQL column lists come from the entity's declarations (test/entities.spec.ts proves those match the schema). */
describe('column lists from the entity', () => {
  it('lists every column of diamonds in declaration order, relations left out', () => {
    expect(DIAMOND_COLUMNS).toHaveLength(41);
    expect(DIAMOND_COLUMNS.slice(0, 4)).toEqual(['diamond_id', 'legacy_id', 'version_id', 'revision']);
    expect(DIAMOND_COLUMNS.at(-1)).toBe('custody_head');
    expect(DIAMOND_COLUMNS).not.toContain('parent');
    expect(new Set(DIAMOND_COLUMNS).size).toBe(DIAMOND_COLUMNS.length);
  });

  it('marks exactly the jsonb columns as JSON', () => {
    expect([...DIAMOND_JSON_COLUMNS].sort()).toEqual([
      'data_requests',
      'entity_specific_tags',
      'polished',
      'polished_objective_verification_results',
      'provenance',
      'rough',
      'rough_objective_verification_results',
      'supplementary_tags',
    ]);
  });

  it('stores every date as timestamptz (the insert sends dates as ISO 8601 text, which names the instant only there)', () => {
    const dates = entityColumns(DiamondEntity).filter((c) => /date|time/i.test(c.type));
    expect(dates.map((c) => c.property).sort()).toEqual(['archived_at', 'created_at', 'system_timestamp', 'verification_status_modified_at']);
    for (const c of dates) expect(`${c.property} ${c.type}`).toBe(`${c.property} timestamptz`);
  });

  it('names each column after its property (one naming convention: snake_case properties = column names)', () => {
    for (const entity of platformEntities as (new () => object)[]) {
      for (const c of entityColumns(entity)) expect(`${entity.name}.${c.property}`).toBe(`${entity.name}.${c.name}`);
    }
    expect(entityColumns(GradedMeasurementEntity).map((c) => c.property)).not.toContain('diamond');
  });
});
