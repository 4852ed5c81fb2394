import { generateKeyPairSync } from 'node:crypto';
import type { CustodyAnswer, DiamondV1, InboundShipment, ShareLink } from '@dtp/domain';
import { startTestStack } from '@dtp/test-stack';
import { participantWithToken, ParticipantWithToken, TestStack } from '@dtp/testing';
import { eventually } from './support';
import { platformCall, publicGet } from './passport-support';

export interface ShipmentJourney {
  producer: ParticipantWithToken;
  manufacturer: ParticipantWithToken;
  reader: ParticipantWithToken;
  /** The producer's rough diamonds, as shipped to the manufacturer. */
  shipped: DiamondV1[];
  shipmentId: string;
  /** The manufacturer's rough, registered against the accepted shipment. */
  rough: DiamondV1;
  polished: DiamondV1;
  share: ShareLink;
}

let names = 0;

/** A custody signing key for platform (checkpoints) and search (origin credentials): the same key in both. */
export function custodySigningKey(kid = `origin-test-${process.pid}`): string {
  const { privateKey } = generateKeyPairSync('ed25519');
  return JSON.stringify({ ...privateKey.export({ format: 'jwk' }), kid });
}

/** auth, platform (checkpointing every 200 ms) and search, sharing one custody signing key (credentials need it in search). */
export function originStack(key: string = custodySigningKey()): Promise<TestStack> {
  return startTestStack({
    services: ['auth', 'platform', 'search'],
    env: {
      platform: { CUSTODY_CHECKPOINT_INTERVAL_MS: '200', CUSTODY_SIGNING_KEY: key },
      search: (urls) => ({ PLATFORM_PUBLIC_URL: urls.platform!, CUSTODY_SIGNING_KEY: key }),
    },
  });
}

/** Ships `ids` and answers the shipment; shipping needs platform to know the recipient: retried until it does. */
export async function shipAndAccept(
  stack: TestStack,
  from: ParticipantWithToken,
  to: ParticipantWithToken,
  type: 'rough' | 'polished',
  ids: string[],
): Promise<InboundShipment> {
  const s = await eventually(async () => {
    const res = await fetch(`${stack.urls.platform}/v2/transfer/out`, {
      method: 'POST',
      headers: { authorization: from.token, 'content-type': 'application/json' },
      body: JSON.stringify({ recipient_participant_id: to.participant_id, name: 'origin journey', shipment_type: type, diamond_ids: ids }),
    });
    const text = await res.text();
    if (res.status === 201) return JSON.parse(text) as InboundShipment;
    if (res.status !== 404 && res.status !== 422) throw new Error(`transfer out: ${res.status} ${text}`);
    return undefined;
  }, 'a shipment platform accepts');
  await platformCall(stack, to, 'POST', `/v2/transfer/in/${s.id}/accept`, { diamond_ids: ids });
  return s;
}

/**
 * docs/lifecycle.md's path: a producer (a mine in `country`) registers two rough diamonds and ships them to a
 * manufacturer, who accepts the shipment, registers its rough against it (box_id = the shipment id), polishes it,
 * grades it (GIA, report `reportNumber`) and shares its passport. Waits until search serves the polished stone's
 * custody answer with its latest version.
 */
export async function shipmentJourney(stack: TestStack, opts: { country?: string; reportNumber?: string } = {}): Promise<ShipmentJourney> {
  names += 1;
  const tag = `${process.pid}-${names}-${Date.now().toString(36)}`;
  const producer = await participantWithToken(stack, 'producer', 'platform', {
    name: `Orapa Mining ${tag}`,
    provenance: { name: `Orapa Mine ${tag}`, type: 'mine', country_code: opts.country ?? 'BW' },
  });
  const manufacturer = await participantWithToken(stack, 'manufacturer', 'platform', { name: `Antwerp Cutting ${tag}` });
  const reader = await participantWithToken(stack, 'non_participant', 'search');
  const shipped: DiamondV1[] = [];
  for (const n of [1, 2]) {
    shipped.push(
      await platformCall<DiamondV1>(stack, producer, 'POST', '/diamonds/rough/create', {
        box_id: `SIGHT-${tag}`,
        participant_id: `MINE-${tag}-${n}`,
        participant_timestamp: '2024-03-01T10:00:00Z',
        rough: { carats: 3 },
      }),
    );
  }
  const s = await shipAndAccept(
    stack,
    producer,
    manufacturer,
    'rough',
    shipped.map((d) => d.diamond_id),
  );
  const rough = await platformCall<DiamondV1>(stack, manufacturer, 'POST', '/diamonds/rough/create', {
    box_id: s.id,
    participant_id: `ROUGH-${tag}`,
    participant_timestamp: '2024-03-10T10:00:00Z',
    rough: { carats: 2.9 },
  });
  let polished = await platformCall<DiamondV1>(stack, manufacturer, 'POST', '/diamonds/polished/create', {
    parent_diamond_id: rough.diamond_id,
    participant_id: `CUT-${tag}`,
    participant_timestamp: '2024-04-01T10:00:00Z',
    polished: { carats: '1.21', shape: 'Round', colour: 'F', clarity: 'VS2', cut_grade: 'EX' },
  });
  const grading = await platformCall<{ id: string }>(stack, manufacturer, 'POST', `/diamonds/${polished.diamond_id}/graded-measurements`, {
    carats: 1.21,
    shape: 'Round',
    colour: 'F',
    clarity: 'VS2',
    cut_grade: 'EX',
    grading_lab: 'GIA',
    grader_report_number: opts.reportNumber ?? `22${String(Date.now()).slice(-8)}`,
    graded_date: '2024-05-01T00:00:00Z',
  });
  await platformCall(stack, manufacturer, 'PATCH', `/diamonds/${polished.diamond_id}/${grading.id}/select`);
  const share = await platformCall<ShareLink>(stack, manufacturer, 'POST', `/diamonds/${polished.diamond_id}/share`, {});
  polished = await eventually(async () => {
    const res = await fetch(`${stack.urls.search}/v1/diamonds/${polished.diamond_id}`, { headers: { authorization: reader.token } });
    const text = await res.text();
    const r = res.status === 200 ? (JSON.parse(text) as DiamondV1) : undefined;
    return r && r.grading?.length ? r : undefined;
  }, 'the graded diamond in search');
  await eventually(
    async () => {
      const res = await publicGet(stack, `/passport/${share.share_id}/custody`);
      if (res.status !== 200) return undefined;
      const answer = JSON.parse(res.text) as CustodyAnswer;
      return answer.entries.some((e) => e.entry.version_id === polished.version_id) ? true : undefined;
    },
    'the custody log covering the graded diamond',
    30_000,
  );
  return { producer, manufacturer, reader, shipped, shipmentId: s.id, rough, polished, share };
}

/** A GET of search as `who` (a bearer token), read to its end. */
export async function searchGet(stack: TestStack, who: { token: string }, path: string): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${stack.urls.search}${path}`, { headers: { authorization: who.token } });
  return { status: res.status, headers: res.headers, text: await res.text() };
}
