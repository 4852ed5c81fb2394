import type { DiamondV1, InboundShipment, ShipmentType } from '@dtp/domain';
import type { ParticipantWithToken } from '@dtp/testing';
import { call, JsonResponse, outboxRows, participant, participantKnown, PlatformFixture, register } from './helpers';
import type { Role } from '@dtp/domain';

/** A participant that platform already knows (its onboarding event was consumed), so it can receive shipments. */
export async function knownParticipant(f: PlatformFixture, role: Role, opts?: Parameters<typeof participant>[2]): Promise<ParticipantWithToken> {
  const p = await participant(f, role, opts);
  await participantKnown(f, p.participant_id);
  return p;
}

export function transferOut(
  f: PlatformFixture,
  sender: ParticipantWithToken,
  recipientId: string,
  type: ShipmentType,
  diamondIds: string[],
  name = 'test shipment',
): Promise<JsonResponse<InboundShipment>> {
  return call<InboundShipment>(f, 'POST', '/v2/transfer/out', sender.token, {
    recipient_participant_id: recipientId,
    name,
    shipment_type: type,
    diamond_ids: diamondIds,
  });
}

/** Ships and fails the test on anything but 201. */
export async function ship(
  f: PlatformFixture,
  sender: ParticipantWithToken,
  recipientId: string,
  type: ShipmentType,
  diamondIds: string[],
): Promise<InboundShipment> {
  const res = await transferOut(f, sender, recipientId, type, diamondIds);
  if (res.status !== 201) throw new Error(`transfer out failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export function decide(
  f: PlatformFixture,
  who: ParticipantWithToken,
  shipmentId: string,
  decision: 'accept' | 'reject',
  diamondIds: string[],
  prefix: '/v2' | '' = '/v2',
): Promise<JsonResponse<InboundShipment>> {
  return call<InboundShipment>(f, 'POST', `${prefix}/transfer/in/${shipmentId}/${decision}`, who.token, { diamond_ids: diamondIds });
}

/** Registers `carats.length` rough diamonds for `producer` and ships them to `recipient` as one rough shipment. */
export async function roughShipment(
  f: PlatformFixture,
  producer: ParticipantWithToken,
  recipient: ParticipantWithToken,
  carats: (number | string)[],
): Promise<{ shipment: InboundShipment; diamonds: DiamondV1[] }> {
  const diamonds: DiamondV1[] = [];
  for (const c of carats) diamonds.push(await register(f, producer, { rough: { carats: c } }));
  const shipment = await ship(
    f,
    producer,
    recipient.participant_id,
    'rough',
    diamonds.map((d) => d.diamond_id),
  );
  return { shipment, diamonds };
}

/** A polished diamond held by `maker` (a manufacturer): it registers a rough one and polishes it. */
export async function polishedDiamond(f: PlatformFixture, maker: ParticipantWithToken, carats = '0.5'): Promise<DiamondV1> {
  const rough = await register(f, maker, { rough: { carats: 1.5 } });
  const res = await call<DiamondV1>(f, 'POST', '/diamonds/polished/create', maker.token, {
    parent_diamond_id: rough.diamond_id,
    participant_id: `${rough.participant_id}-P`,
    participant_timestamp: '2024-04-01T10:00:00Z',
    polished: { carats, shape: 'Round', colour: 'E', clarity: 'VS1', cut_grade: 'EX' },
  });
  if (res.status !== 200) throw new Error(`polish failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The diamond's latest record as published (the last diamond.upserted in the outbox). */
export async function latestRecord(f: PlatformFixture, diamondId: string): Promise<{ record: DiamondV1; revision: number; count: number }> {
  const rows = (await outboxRows(f, diamondId)).filter((r) => r.event_type === 'diamond.upserted');
  const last = rows[rows.length - 1];
  return { record: last.payload!.data as unknown as DiamondV1, revision: Number(last.revision), count: rows.length };
}

export interface DiamondState {
  holder_id: string;
  uploader_id: string;
  possession_state: string;
  unlock_status: string;
  lifecycle_state: string;
  revision: string;
  version_id: string;
}

export async function diamondState(f: PlatformFixture, diamondId: string): Promise<DiamondState> {
  const { rows } = await f.db.query<DiamondState>(
    `SELECT holder_id, uploader_id, possession_state, unlock_status, lifecycle_state, revision, version_id FROM diamonds WHERE diamond_id = $1`,
    [diamondId],
  );
  return rows[0];
}

/** The spec's shipment timestamp form. */
export const SHIPMENT_TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}\+0000$/;
