import { CreateRoughDiamondDto, isDiamondId } from '@dtp/domain';
import { caller, newTestService, refusal } from '../../test/test-service';

const dto = (over: Partial<CreateRoughDiamondDto> = {}): CreateRoughDiamondDto =>
  ({ box_id: 'BOX-1', participant_id: 'ERP-1', participant_timestamp: '2024-03-01T10:00:00Z', rough: { carats: 1.25 }, ...over }) as CreateRoughDiamondDto;

describe('RegistrationService (in-memory repositories)', () => {
  const producer = caller('producer-1', 'producer');

  it('registers a rough diamond of an onboarded producer: revision 1, its first custody entry and its event', async () => {
    const t = newTestService();
    t.participants.onboard('producer-1', 'producer', 'Acme Mining', { name: 'Acme Mine', type: 'mine', country_code: 'BW' });
    const { record } = await t.registration.registerRough(producer, dto({ sight_no: 12 }));

    expect(isDiamondId(record.diamond_id)).toBe(true);
    expect(record).toMatchObject({ lifecycle_state: 'rough', current_stage: 'rough', box_id: 'BOX-1', participant_id: 'ERP-1', sight_no: 12 });
    expect(record.provenance).toEqual({
      provenance_name: 'Acme Mine',
      provenance_type: 'mine',
      is_locked: true,
      is_country_code_available: true,
      country_code: 'BW',
    });
    const row = t.diamonds.get(record.diamond_id)!;
    expect(row).toMatchObject({
      holder_id: 'producer-1',
      uploader_id: 'producer-1',
      box_scope: 'producer-1',
      revision: 1,
      provenance_pending: false,
      possession_state: 'held',
    });
    expect(t.diamonds.entries).toHaveLength(1);
    expect(t.diamonds.entries[0].entry).toMatchObject({
      diamond_id: record.diamond_id,
      action: 'registered',
      actor_participant_id: 'producer-1',
      prev_entry_hash: null,
    });
    expect(row.custody_head).toBe(t.diamonds.entries[0].entry_hash);
    expect(t.diamonds.events.map((e) => [e.topic, e.eventType, e.key, e.revision])).toEqual([
      ['platform.diamonds.v1', 'diamond.upserted', record.diamond_id, 1],
    ]);
  });

  it('refuses a participant_id already registered in the same box: 409 diamond_not_unique, nothing written', async () => {
    const t = newTestService();
    t.participants.onboard('producer-1', 'producer');
    await t.registration.registerRough(producer, dto());
    const r = await refusal(t.registration.registerRough(producer, dto({ rough: { carats: 2 } } as Partial<CreateRoughDiamondDto>)));
    expect(r).toEqual({
      kind: 'conflict',
      body: { message: 'diamond is not unique: participant_id ERP-1 is already registered in box BOX-1', reason: 'diamond_not_unique' },
    });
    expect(t.diamonds.rows.size).toBe(1);
    expect(t.diamonds.events).toHaveLength(1);
  });

  it('accepts the same participant_id in another box, and in the same box of another participant', async () => {
    const t = newTestService();
    t.participants.onboard('producer-1', 'producer');
    t.participants.onboard('producer-2', 'producer');
    await t.registration.registerRough(producer, dto());
    await t.registration.registerRough(producer, dto({ box_id: 'BOX-2' }));
    await t.registration.registerRough(caller('producer-2', 'producer'), dto());
    expect(t.diamonds.rows.size).toBe(3);
  });

  it('refuses sight numbers beyond the safe integer range: 422 naming each field, nothing written', async () => {
    const t = newTestService();
    t.participants.onboard('producer-1', 'producer');
    const r = await refusal(t.registration.registerRough(producer, dto({ sight_no: 2 ** 53, sight_year: 2 ** 60 })));
    expect(r.kind).toBe('invalid');
    expect((r.body.detail as { loc: string[]; type: string }[]).map((d) => [d.loc, d.type])).toEqual([
      [['body', 'sight_no'], 'int_type'],
      [['body', 'sight_year'], 'int_type'],
    ]);
    expect(t.diamonds.rows.size).toBe(0);
  });

  it("takes a producer's provenance from its token while its onboarding event has not arrived, marked pending", async () => {
    const t = newTestService();
    const { record } = await t.registration.registerRough(producer, dto());
    expect(record.provenance).toMatchObject({ provenance_name: 'Participant producer-1', is_locked: true });
    expect(t.diamonds.get(record.diamond_id)!.provenance_pending).toBe(true);
    // Serialised with the onboarding consumer: the participant's advisory lock was taken in the same unit of work.
    expect(t.uow.statements.some((s) => /pg_advisory_xact_lock/.test(s.text))).toBe(true);
  });

  it("leaves a manufacturer's provenance for the platform to set (nulls, not locked)", async () => {
    const t = newTestService();
    t.participants.onboard('maker-1', 'manufacturer');
    const { record } = await t.registration.registerRough(caller('maker-1', 'manufacturer'), dto());
    expect(record.provenance).toEqual({ provenance_name: null, provenance_type: null, is_locked: false, is_country_code_available: false });
  });

  it("registers against an accepted shipment's box with the shipment's producer and provenance, and rolls back when it is full", async () => {
    const t = newTestService();
    const box = t.boxes.shipmentBox('SHIPMENT-BOX', 1);
    const maker = caller('maker-1', 'manufacturer');
    const { record } = await t.registration.registerRough(maker, dto({ box_id: 'SHIPMENT-BOX' }));
    expect(box.reserved).toEqual(['1.25']);
    expect(t.diamonds.get(record.diamond_id)).toMatchObject({ box_scope: 'shipment-SHIPMENT-BOX', producer_uuid: 'producer-of-the-shipment' });
    expect(record.provenance).toMatchObject({ provenance_name: 'Shipped Mine', is_locked: true });

    const r = await refusal(t.registration.registerRough(maker, dto({ box_id: 'SHIPMENT-BOX', participant_id: 'ERP-2' })));
    expect(r).toEqual({ kind: 'conflict', body: { message: 'shipment SHIPMENT-BOX is full', reason: 'shipment_full' } });
    expect(t.diamonds.rows.size).toBe(1);
  });
});
