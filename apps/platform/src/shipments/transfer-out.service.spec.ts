import { newDiamondId, Role, TransferOutDto } from '@dtp/domain';
import { sampleRow } from '../../test/diamond.fixture';
import { caller, newTestService, refusal } from '../../test/test-service';

const sender = caller('sender-1', 'producer');

/** Services with an onboarded sender and recipient, and `n` rough diamonds the sender holds. */
function setUp(n = 2, recipientRole: Role = 'manufacturer') {
  const t = newTestService();
  t.participants.onboard('sender-1', 'producer');
  t.participants.onboard('recipient-1', recipientRole);
  const rows = Array.from({ length: n }, (_, i) =>
    sampleRow({
      diamond_id: newDiamondId(),
      holder_id: 'sender-1',
      uploader_id: 'sender-1',
      producer_uuid: 'sender-1',
      participant_id: `ERP-${i}`,
      custody_head: `h${i}`,
    }),
  );
  t.diamonds.seed(...rows);
  const ids = rows.map((r) => r.diamond_id);
  const dto = (over: Partial<TransferOutDto> = {}): TransferOutDto =>
    ({ recipient_participant_id: 'recipient-1', name: 'Parcel 7', shipment_type: 'rough', diamond_ids: ids, ...over }) as TransferOutDto;
  return { t, rows, ids, dto };
}

/** 422 on recipient_participant_id: its type. */
async function fieldError(p: Promise<unknown>): Promise<{ kind: string; loc: unknown; type: unknown }> {
  const r = await refusal(p);
  const [d] = r.body.detail as { loc: unknown; type: unknown }[];
  return { kind: r.kind, loc: d.loc, type: d.type };
}

describe('TransferOutService (in-memory repositories)', () => {
  it('ships held diamonds: a new shipment, every diamond in transit (a new version, custody entry and event each), shipment.changed', async () => {
    const { t, ids, dto } = setUp(2);
    const view = await t.transferOut.transferOut(sender, dto({ diamond_ids: [ids[1], ids[0]] }));

    expect(view).toMatchObject({ name: 'Parcel 7', sender: 'https://platform.example', shipment_type: 'rough', status: 'action_required' });
    const [shipment] = [...t.shipments.shipments.values()];
    expect(shipment).toMatchObject({
      shipment_id: view.id,
      sender_id: 'sender-1',
      recipient_id: 'recipient-1',
      total_diamonds: 2,
      total_carats: '2.5',
      revision: 1,
    });
    expect(t.shipments.entries.get(view.id)!.map((e) => [e.diamond_id, e.position, e.transfer_state])).toEqual([
      [ids[1], 0, 'transfer_in_pending'],
      [ids[0], 1, 'transfer_in_pending'],
    ]);
    for (const id of ids) expect(t.diamonds.get(id)).toMatchObject({ possession_state: 'in_transit', revision: 4, holder_id: 'sender-1' });
    expect(t.diamonds.entries.map((e) => e.entry.action)).toEqual(['shipped', 'shipped']);
    expect(t.diamonds.entries[0].context).toEqual({ shipment_id: view.id, counterparty_participant_id: 'recipient-1' });
    expect(t.diamonds.events.map((e) => e.eventType)).toEqual(['diamond.upserted', 'diamond.upserted']);
    expect(t.uow.outboxWrites().map((w) => [w.topic, w.eventType, w.key])).toEqual([['platform.shipments.v1', 'shipment.changed', view.id]]);
  });

  it.each([
    ['sending to yourself', { recipient_participant_id: 'sender-1' }, 'value_error.self_shipment'],
    ['a recipient platform has not heard of', { recipient_participant_id: 'nobody-1' }, 'value_error.unknown_participant'],
  ])('refuses %s: 422 on recipient_participant_id', async (_name, over, type) => {
    const { t, dto } = setUp(1);
    expect(await fieldError(t.transferOut.transferOut(sender, dto(over)))).toEqual({ kind: 'invalid', loc: ['body', 'recipient_participant_id'], type });
    expect(t.shipments.shipments.size).toBe(0);
  });

  it.each([['grading_lab'], ['non_participant']] as [Role][])('refuses a %s recipient: 422 value_error.recipient_role', async (role) => {
    const { t, dto } = setUp(1, role);
    expect((await fieldError(t.transferOut.transferOut(sender, dto()))).type).toBe('value_error.recipient_role');
  });

  it('refuses a rough shipment to a retailer (422) and from a retailer (403)', async () => {
    const { t, dto } = setUp(1, 'retailer');
    expect((await fieldError(t.transferOut.transferOut(sender, dto()))).type).toBe('value_error.recipient_role');
    t.participants.onboard('retailer-2', 'retailer');
    expect(await refusal(t.transferOut.transferOut(caller('retailer-2', 'retailer'), dto({ recipient_participant_id: 'recipient-1' })))).toEqual({
      kind: 'forbidden',
      body: { message: 'retailers send polished shipments only' },
    });
  });

  it('answers 404 listing the ids that are malformed or unknown', async () => {
    const { t, ids, dto } = setUp(1);
    const unknown = newDiamondId();
    expect(await refusal(t.transferOut.transferOut(sender, dto({ diamond_ids: [ids[0], 'BAD'] })))).toEqual({
      kind: 'not_found',
      body: { message: 'diamond not found: BAD', diamond_ids: ['BAD'] },
    });
    expect((await refusal(t.transferOut.transferOut(sender, dto({ diamond_ids: [unknown, ids[0]] })))).body.diamond_ids).toEqual([unknown]);
  });

  it("answers 403 not_holder listing another participant's diamonds, and ships nothing", async () => {
    const { t, ids, dto } = setUp(2);
    t.diamonds.seed({ ...t.diamonds.get(ids[1])!, holder_id: 'someone-else' });
    const r = await refusal(t.transferOut.transferOut(sender, dto()));
    expect(r).toEqual({
      kind: 'forbidden',
      body: { message: `only the holder of a diamond may ship it; you do not hold: ${ids[1]}`, reason: 'not_holder', diamond_ids: [ids[1]] },
    });
    expect(t.diamonds.get(ids[0])).toMatchObject({ possession_state: 'held', revision: '3' });
    expect(t.diamonds.events).toEqual([]);
  });

  it('answers 409 in_transit for a diamond already in a shipment, 409 wrong_lifecycle_state for one of another stage', async () => {
    const { t, ids, dto } = setUp(2);
    t.diamonds.seed({ ...t.diamonds.get(ids[0])!, possession_state: 'in_transit' });
    const moving = await refusal(t.transferOut.transferOut(sender, dto()));
    expect([moving.kind, moving.body.reason, moving.body.diamond_ids]).toEqual(['conflict', 'in_transit', [ids[0]]]);

    const wrong = await refusal(t.transferOut.transferOut(sender, dto({ diamond_ids: [ids[1]], shipment_type: 'polished' })));
    expect(wrong).toEqual({
      kind: 'conflict',
      body: {
        message: `a polished shipment holds diamonds whose lifecycle_state is polished only; not: ${ids[1]} (rough)`,
        reason: 'wrong_lifecycle_state',
        diamond_ids: [ids[1]],
      },
    });
    expect(t.shipments.shipments.size).toBe(0);
  });

  it('a diamond shipped once cannot be shipped again until answered', async () => {
    const { t, dto } = setUp(1);
    await t.transferOut.transferOut(sender, dto());
    expect((await refusal(t.transferOut.transferOut(sender, dto()))).body.reason).toBe('in_transit');
    expect(t.shipments.shipments.size).toBe(1);
  });
});
