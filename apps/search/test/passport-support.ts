import type { CustodyAnswer, DiamondV1, InboundShipment, ShareLink } from '@dtp/domain';
import { startTestStack } from '@dtp/test-stack';
import { participantWithToken, ParticipantWithToken, TestStack } from '@dtp/testing';
import { eventually } from './support';

export interface Caller {
  token: string;
}

/** A JSON call to platform as `who`; fails the test on another status than `expected`. */
export async function platformCall<T>(stack: TestStack, who: Caller, method: string, path: string, body?: unknown, expected = [200, 201, 204]): Promise<T> {
  const res = await fetch(`${stack.urls.platform}${path}`, {
    method,
    headers: { authorization: who.token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!expected.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

/** A public GET of search, read to its end at once (no half-read answer left on a kept-alive socket). */
export async function publicGet(stack: TestStack, path: string, accept?: string): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${stack.urls.search}${path}`, accept ? { headers: { accept } } : {});
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/**
 * The stack the passport tests run: auth, platform (checkpointing every 200 ms) and search (knowing platform's address);
 * with `custodyKey`, platform and search share that custody signing key (search's origin credentials need it).
 */
export function passportStack(custodyKey?: string): Promise<TestStack> {
  const key: Record<string, string> = custodyKey === undefined ? {} : { CUSTODY_SIGNING_KEY: custodyKey };
  return startTestStack({
    services: ['auth', 'platform', 'search'],
    env: { platform: { CUSTODY_CHECKPOINT_INTERVAL_MS: '200', ...key }, search: (urls) => ({ PLATFORM_PUBLIC_URL: urls.platform!, ...key }) },
  });
}

/** Ships `ids` and answers the shipment; shipping needs platform to know the recipient (its onboarding event): retried until it does. */
export async function shipAndAccept(
  stack: TestStack,
  from: ParticipantWithToken,
  to: ParticipantWithToken,
  type: 'rough' | 'polished',
  ids: string[],
  name = 'test shipment',
): Promise<InboundShipment> {
  const s = await eventually(async () => {
    const res = await fetch(`${stack.urls.platform}/v2/transfer/out`, {
      method: 'POST',
      headers: { authorization: from.token, 'content-type': 'application/json' },
      body: JSON.stringify({ recipient_participant_id: to.participant_id, name, shipment_type: type, diamond_ids: ids }),
    });
    const text = await res.text();
    if (res.status === 201) return JSON.parse(text) as InboundShipment;
    if (res.status !== 404 && res.status !== 422) throw new Error(`transfer out: ${res.status} ${text}`);
    return undefined;
  }, 'a shipment platform accepts');
  await platformCall(stack, to, 'POST', `/v2/transfer/in/${s.id}/accept`, { diamond_ids: ids });
  return s;
}

/** Grades `diamondId` as `who` (a graded measurement) and selects that grading as the active one. */
export async function gradeAndSelect(stack: TestStack, who: Caller, diamondId: string, measurements: Record<string, unknown>): Promise<void> {
  const grading = await platformCall<{ id: string }>(stack, who, 'POST', `/diamonds/${diamondId}/graded-measurements`, measurements);
  await platformCall(stack, who, 'PATCH', `/diamonds/${diamondId}/${grading.id}/select`);
}

/** The record search serves for `diamondId` (read as `reader`), once `ready` holds for it. */
export function searchedRecord(stack: TestStack, reader: Caller, diamondId: string, ready: (record: DiamondV1) => boolean, what: string): Promise<DiamondV1> {
  return eventually(async () => {
    const res = await fetch(`${stack.urls.search}/v1/diamonds/${diamondId}`, { headers: { authorization: reader.token } });
    const text = await res.text();
    const r = res.status === 200 ? (JSON.parse(text) as DiamondV1) : undefined;
    return r && ready(r) ? r : undefined;
  }, what);
}

/** Waits until the share link's custody answer has an entry of `versionId` (platform checkpoints, search rebuilds the tree). */
export async function custodyCovers(stack: TestStack, shareId: string, versionId: string, what: string): Promise<void> {
  await eventually(
    async () => {
      const res = await publicGet(stack, `/passport/${shareId}/custody`);
      if (res.status !== 200) return undefined;
      const answer = JSON.parse(res.text) as CustodyAnswer;
      return answer.entries.some((e) => e.entry.version_id === versionId) ? true : undefined;
    },
    what,
    30_000,
  );
}

export interface Journey {
  producer: ParticipantWithToken;
  manufacturer: ParticipantWithToken;
  retailer: ParticipantWithToken;
  rough: DiamondV1;
  polished: DiamondV1;
  share: ShareLink;
}

/** A valid 1x1 PNG. */
export const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

let names = 0;
/**
 * A whole journey through platform: a producer (a mine in Botswana) registers a rough diamond and ships it to a
 * manufacturer, who accepts it, cuts a polished diamond from it, grades it (GIA) and ships it to a retailer, who
 * accepts it and shares its passport. Waits until search serves the passport of the latest record.
 */
export async function journey(stack: TestStack): Promise<Journey> {
  names += 1;
  const tag = `${process.pid}-${names}`;
  const producer = await participantWithToken(stack, 'producer', 'platform', {
    name: `Kalahari Mining ${tag}`,
    provenance: { name: `Karowe Mine ${tag}`, type: 'mine', country_code: 'BW' },
  });
  const manufacturer = await participantWithToken(stack, 'manufacturer', 'platform', { name: `Antwerp Cutters ${tag}` });
  const retailer = await participantWithToken(stack, 'retailer', 'platform', { name: `Bright Jewels ${tag}` });
  const rough = await platformCall<DiamondV1>(stack, producer, 'POST', '/diamonds/rough/create', {
    box_id: 'BOX-PASSPORT',
    participant_id: `ERP-${tag}`,
    participant_timestamp: '2024-03-01T10:00:00Z',
    rough: { carats: 2.5 },
  });
  await shipAndAccept(stack, producer, manufacturer, 'rough', [rough.diamond_id], 'passport journey');
  let polished = await platformCall<DiamondV1>(stack, manufacturer, 'POST', '/diamonds/polished/create', {
    parent_diamond_id: rough.diamond_id,
    participant_id: `CUT-${tag}`,
    participant_timestamp: '2024-04-01T10:00:00Z',
    polished: { carats: '1.01', shape: 'Round', colour: 'E', clarity: 'VS1', cut_grade: 'EX' },
  });
  await gradeAndSelect(stack, manufacturer, polished.diamond_id, {
    carats: 1.01,
    shape: 'Round',
    colour: 'E',
    clarity: 'VS1',
    cut_grade: 'EX',
    grading_lab: 'GIA',
    graded_date: '2024-05-01T00:00:00Z',
  });
  // A face-up photo (a 1x1 PNG) and a file the page does not show as a photo (SVG).
  for (const [bytes, type, name] of [
    [PNG_1X1, 'image/png', 'face-up.png'],
    [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/svg+xml', 'outline.svg'],
  ] as const) {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type }), name);
    form.append('image_type', 'face_up');
    const up = await fetch(`${stack.urls.platform}/diamonds/${polished.diamond_id}/files/image`, {
      method: 'POST',
      headers: { authorization: manufacturer.token },
      body: form,
    });
    const text = await up.text();
    if (up.status !== 201) throw new Error(`image upload: ${up.status} ${text}`);
  }
  await shipAndAccept(stack, manufacturer, retailer, 'polished', [polished.diamond_id], 'passport journey');
  const share = await platformCall<ShareLink>(stack, retailer, 'POST', `/diamonds/${polished.diamond_id}/share`, {});
  // The record as platform holds it now, and search serving its passport with that version.
  const reader = await participantWithToken(stack, 'non_participant', 'search');
  polished = await searchedRecord(
    stack,
    reader,
    polished.diamond_id,
    (r) => r.possession_state === 'held' && !!r.grading?.length,
    'the delivered diamond in search',
  );
  await eventually(async () => ((await publicGet(stack, `/passport/${share.share_id}`)).status === 200 ? true : undefined), 'the passport page');
  // ... and its custody answer reaching that version.
  await custodyCovers(stack, share.share_id, polished.version_id, 'the custody log covering the delivered diamond');
  return { producer, manufacturer, retailer, rough, polished, share };
}
