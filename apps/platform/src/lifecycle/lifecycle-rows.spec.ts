import { plainToInstance } from 'class-transformer';
import { ConflictError, PolishedSchemaDto, RoughSchemaDto } from '@dtp/domain';
import type { Caller } from '@dtp/auth-guard';
import { sampleRow } from '../../test/diamond.fixture';
import { assertTransition } from './lifecycle-errors';
import { childScope, newChildRow, polishedFromSchema, roughFromSchema } from './lifecycle-rows';

const maker: Caller = { participantId: 'm-1', role: 'manufacturer', clientId: 'c' };

describe('lifecycle rows', () => {
  it('keeps supplied members, carats as decimal text', () => {
    expect(roughFromSchema(plainToInstance(RoughSchemaDto, { carats: 0.5, colour: 'E' }))).toEqual({ carats: '0.5', colour: 'E' });
    expect(polishedFromSchema(plainToInstance(PolishedSchemaDto, { carats: '0.70', shape: 'Round', depth: 61.2 }))).toEqual({
      carats: '0.70',
      shape: 'Round',
      depth: 61.2,
    });
  });

  it('makes a child linked to its parent, inheriting origin, held and locked by the caller', () => {
    const parent = sampleRow({ unlock_status: 'unlocked', holder_id: 'm-1' });
    const now = new Date('2024-05-01T00:00:00Z');
    const child = newChildRow(
      parent,
      maker,
      { participantId: 'C-1', participantTimestamp: 't', stage: 'polished', rough: parent.rough, polished: { carats: '0.5' } },
      now,
    );
    expect(child).toMatchObject({
      diamond_parent_id: parent.diamond_id,
      participant_parent_id: 'ERP-1',
      legacy_parent_id: parent.legacy_id,
      producer_uuid: 'p-1',
      provenance: parent.provenance,
      uploader_id: 'm-1',
      holder_id: 'm-1',
      box_scope: childScope(parent.diamond_id),
      box_id: 'BOX',
      lifecycle_state: 'polished',
      current_stage: 'polished',
      unlock_status: 'locked',
      possession_state: 'held',
      revision: 1,
      created_at: now,
    });
    expect(child.diamond_id).not.toBe(parent.diamond_id);
  });

  it('allows only the moves of LIFECYCLE_TRANSITIONS', () => {
    expect(() => assertTransition(sampleRow(), 'split')).not.toThrow();
    for (const from of ['split', 'polished', 'destroyed'] as const) {
      try {
        assertTransition(sampleRow({ lifecycle_state: from }), 'destroyed');
        throw new Error('no refusal');
      } catch (err) {
        expect(err).toBeInstanceOf(ConflictError);
        expect((err as ConflictError).body).toMatchObject({ reason: 'illegal_transition', from, to: 'destroyed' });
      }
    }
  });
});
