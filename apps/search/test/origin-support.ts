import { generateKeyPairSync } from 'node:crypto';
import type { DiamondV1, ShareLink } from '@dtp/domain';
import { participantWithToken, ParticipantWithToken, TestStack } from '@dtp/testing';
import { custodyCovers, gradeAndSelect, passportStack, platformCall, searchedRecord, shipAndAccept } from './passport-support';

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
  return passportStack(key);
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
    'origin journey',
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
  await gradeAndSelect(stack, manufacturer, polished.diamond_id, {
    carats: 1.21,
    shape: 'Round',
    colour: 'F',
    clarity: 'VS2',
    cut_grade: 'EX',
    grading_lab: 'GIA',
    grader_report_number: opts.reportNumber ?? `22${String(Date.now()).slice(-8)}`,
    graded_date: '2024-05-01T00:00:00Z',
  });
  const share = await platformCall<ShareLink>(stack, manufacturer, 'POST', `/diamonds/${polished.diamond_id}/share`, {});
  polished = await searchedRecord(stack, reader, polished.diamond_id, (r) => !!r.grading?.length, 'the graded diamond in search');
  await custodyCovers(stack, share.share_id, polished.version_id, 'the custody log covering the graded diamond');
  return { producer, manufacturer, reader, shipped, shipmentId: s.id, rough, polished, share };
}

/** A GET of search as `who` (a bearer token), read to its end. */
export async function searchGet(stack: TestStack, who: { token: string }, path: string): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${stack.urls.search}${path}`, { headers: { authorization: who.token } });
  return { status: res.status, headers: res.headers, text: await res.text() };
}
