import { plainToInstance } from 'class-transformer';
import { CreateRoughDiamondDto, PolishedSchemaDto } from '@dtp/domain';
import { newDiamondRow, polishedFromSchema, roughFromSchema } from './new-diamond-row';

const dto = (rough: Record<string, unknown>) =>
  plainToInstance(CreateRoughDiamondDto, { box_id: 'B', participant_id: 'P', participant_timestamp: '2024-01-01T00:00:00Z', rough });

describe('request sections as stored', () => {
  it('writes carats as decimal text and echoes exactly the supplied members, in the order supplied', () => {
    expect(roughFromSchema(dto({ carats: 1.5, colour: 'D', model: null }).rough)).toEqual({ carats: '1.5', colour: 'D', model: null });
    expect(Object.keys(roughFromSchema(dto({ colour: 'D', carats: 2 }).rough))).toEqual(['colour', 'carats']);
    expect(roughFromSchema(dto({ carats: '0.30' }).rough)).toEqual({ carats: '0.30' });
    expect(roughFromSchema(dto({ carats: 0.1 + 0.2 }).rough).carats).toBe('0.30000000000000004');
    expect(polishedFromSchema(plainToInstance(PolishedSchemaDto, { carats: 0.5, shape: 'Round', clarity: undefined }))).toEqual({
      carats: '0.5',
      shape: 'Round',
    });
  });
});

describe('newDiamondRow', () => {
  it('starts every diamond held, locked, at revision 1 with fresh ids and the deprecated defaults', () => {
    const now = new Date('2024-01-01T00:00:00Z');
    const fields = {
      uploader_id: 'p',
      holder_id: 'p',
      producer_uuid: 'p',
      box_scope: 'p',
      box_id: 'B',
      participant_id: 'E',
      diamond_parent_id: null,
      participant_parent_id: null,
      legacy_parent_id: null,
      lifecycle_state: 'rough',
      current_stage: 'rough',
      assurance_level: 'assured',
      provenance_pending: false,
      box_description: null,
      sight_no: null,
      sight_year: null,
      participant_timestamp: '2024-01-01T00:00:00Z',
      rough: { carats: '1' },
      polished: {},
      provenance: { provenance_name: 'x', provenance_type: 'mine', is_locked: true, is_country_code_available: false },
      entity_specific_tags: null,
      supplementary_tags: null,
    } as const;
    const a = newDiamondRow(fields, now);
    const b = newDiamondRow(fields, now);
    expect(a).toMatchObject({
      ...fields,
      revision: 1,
      possession_state: 'held',
      unlock_status: 'locked',
      rough_check: false,
      gis_status: null,
      verification_status: 'Verified',
      verification_description: 'verified record',
      data_requests: [],
      system_timestamp: now,
      created_at: now,
    });
    expect(a.diamond_id).toMatch(/^[a-z0-9]{26}$/);
    expect(new Set([a.diamond_id, b.diamond_id, a.version_id, b.version_id, a.legacy_id, b.legacy_id]).size).toBe(6);
  });
});
