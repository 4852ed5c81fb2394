/**
 * docs/lifecycle.md's worked example, "from the mine to the shop", on @dtp/sdk: a producer registers two rough
 * diamonds and ships them to a manufacturer, which accepts the shipment, registers its stones against it,
 * polishes one and ships the polished diamond to a retailer, which accepts it; an insurer reads the record and
 * its ancestry from search.
 *
 * Run it against `npm start` (auth :3001 with the admin token dev-admin-token, platform :3002, search :3003):
 *   node -r ./tools/register.js libs/sdk/examples/lifecycle.ts
 * Other addresses: AUTH_URL, PLATFORM_URL, SEARCH_URL, AUTH_ADMIN_TOKEN. libs/sdk/test/lifecycle-example.spec.ts
 * runs it against a test stack.
 */
// Imported as an integrator imports it (the example is not part of the library).
// eslint-disable-next-line @nx/enforce-module-boundaries
import { createDtpClient, DtpApiError, DtpClient, DtpClientOptions, isDtpApiError, newIdempotencyKey, Platform, RequestBody, unwrap } from '@dtp/sdk';

export interface ExampleConfig {
  authUrl: string;
  platformUrl: string;
  searchUrl: string;
  adminToken: string;
  /** Only when the token audiences are not the services' addresses (tests). */
  audiences?: DtpClientOptions['audiences'];
  log?: (line: string) => void;
}

/** What the example saw, for its test. */
export interface ExampleOutcome {
  rough: [string, string];
  shipment: { id: string; status: string; states: string[] };
  refusals: Record<string, { status: number; reason: string | undefined }>;
  stone: { diamond_id: string; box_id: string | null; provenance: string | null; producer_uuid: string | null };
  polished: { diamond_id: string; diamond_parent_id: string | null; lifecycle_state: string };
  polishedShipment: { id: string; status: string };
  gradedMeasurements: { retailer: number; manufacturer: number };
  search: { lifecycle_state: string; possession_state: string; ancestors: string[] };
}

export async function runLifecycleExample(config: ExampleConfig): Promise<ExampleOutcome> {
  const log = config.log ?? (() => undefined);
  const refusals: ExampleOutcome['refusals'] = {};
  /** Runs a call that must be refused, and notes its status and reason. */
  const refused = async (name: string, call: () => Promise<unknown>) => {
    try {
      await call();
    } catch (err) {
      if (!(err instanceof DtpApiError)) throw err;
      refusals[name] = { status: err.status, reason: err.reason };
      log(`${name}: refused as expected, ${err.status} ${err.reason ?? ''}`);
      return;
    }
    throw new Error(`${name}: expected a refusal`);
  };

  // 1. Onboard the three participants (the operator's admin API) and make a client for each.
  const admin = createDtpClient({ authUrl: config.authUrl, adminToken: config.adminToken });
  const onboard = async (body: {
    name: string;
    role: 'producer' | 'manufacturer' | 'retailer' | 'non_participant';
    provenance?: { name: string; type: string; country_code: string };
  }) => {
    const created = await unwrap(admin.auth.POST('/admin/participants', { body }));
    const client = createDtpClient({
      authUrl: config.authUrl,
      platformUrl: config.platformUrl,
      searchUrl: config.searchUrl,
      clientId: created.client_id,
      clientSecret: created.client_secret,
      audiences: config.audiences,
    });
    return { id: created.participant_id, dtp: client };
  };
  const producer = await onboard({ name: 'Karowe Mining', role: 'producer', provenance: { name: 'Karowe', type: 'mine', country_code: 'BW' } });
  const maker = await onboard({ name: 'Antwerp Cutting', role: 'manufacturer' });
  const retailer = await onboard({ name: 'Bond Street Jewels', role: 'retailer' });
  log(`onboarded producer ${producer.id}, manufacturer ${maker.id}, retailer ${retailer.id}`);

  // 2. The producer registers two rough diamonds from its sight box.
  const register = (who: DtpClient, body: RequestBody<Platform.paths, '/diamonds/rough/create', 'post'>) =>
    unwrap(who.platform.POST('/diamonds/rough/create', { body, headers: { 'Idempotency-Key': newIdempotencyKey() } }));
  const r1 = await register(producer.dtp, {
    box_id: 'SIGHT-2024-05',
    participant_id: 'KAR-0001',
    participant_timestamp: '2024-05-02T08:00:00Z',
    sight_no: 5,
    sight_year: 2024,
    rough: { carats: '2.40', colour: 'G', model: 'Octahedron' },
  });
  const r2 = await register(producer.dtp, {
    box_id: 'SIGHT-2024-05',
    participant_id: 'KAR-0002',
    participant_timestamp: '2024-05-02T08:00:00Z',
    sight_no: 5,
    sight_year: 2024,
    rough: { carats: '1.10', colour: 'H' },
  });
  log(`registered ${r1.diamond_id} and ${r2.diamond_id}`);

  // 3. The producer ships them to the manufacturer (platform learns of a new participant within about a second).
  const shipment = await untilKnown(() =>
    unwrap(
      producer.dtp.platform.POST('/v2/transfer/out', {
        body: { recipient_participant_id: maker.id, name: 'May sight', shipment_type: 'rough', diamond_ids: [r1.diamond_id, r2.diamond_id] },
        headers: { 'Idempotency-Key': newIdempotencyKey() },
      }),
    ),
  );
  log(`shipment ${shipment.id}: ${shipment.status}, ${shipment.total_diamonds} diamonds`);
  // Both diamonds are in transit: shipping one again is refused.
  await refused('ship again', () =>
    unwrap(
      producer.dtp.platform.POST('/v2/transfer/out', {
        body: { recipient_participant_id: maker.id, name: 'again', shipment_type: 'rough', diamond_ids: [r1.diamond_id] },
      }),
    ),
  );

  // 4. The manufacturer finds the shipment in its inbox and accepts it, whole (part of a rough shipment is refused).
  const inbox = await unwrap(maker.dtp.platform.GET('/v2/shipment/inbound', { params: { query: { shipment_type: 'rough' } } }));
  if (!inbox.results.some((s) => s.id === shipment.id)) throw new Error('the shipment is not in the inbox');
  await refused('accept part of a rough shipment', () =>
    unwrap(
      maker.dtp.platform.POST('/v2/transfer/in/{shipment_id}/accept', {
        params: { path: { shipment_id: shipment.id } },
        body: { diamond_ids: [r1.diamond_id] },
      }),
    ),
  );
  const accepted = await unwrap(
    maker.dtp.platform.POST('/v2/transfer/in/{shipment_id}/accept', {
      params: { path: { shipment_id: shipment.id } },
      body: { diamond_ids: [r1.diamond_id, r2.diamond_id] },
      headers: { 'Idempotency-Key': newIdempotencyKey() },
    }),
  );
  log(`accepted: ${accepted.status}`);

  // 5. The manufacturer registers its stones against the shipment (box_id = the shipment id), within its limits:
  //    2 diamonds, 3.50 ct + 0.01 ct per diamond.
  const stone = await register(maker.dtp, {
    box_id: shipment.id,
    participant_id: 'AC-0001',
    participant_timestamp: '2024-05-06T09:00:00Z',
    rough: { carats: '2.41', colour: 'G' },
  });
  await refused('past the weight limit', () =>
    register(maker.dtp, { box_id: shipment.id, participant_id: 'AC-0002', participant_timestamp: '2024-05-06T09:00:00Z', rough: { carats: '1.20' } }),
  );
  await register(maker.dtp, { box_id: shipment.id, participant_id: 'AC-0002', participant_timestamp: '2024-05-06T09:00:00Z', rough: { carats: '1.10' } });

  // 6. The manufacturer polishes the first stone; polishing it again is an illegal move.
  type Polish = RequestBody<Platform.paths, '/diamonds/polished/create', 'post'>;
  const polish = (participantId: string, polished: Polish['polished']) =>
    unwrap(
      maker.dtp.platform.POST('/diamonds/polished/create', {
        body: { parent_diamond_id: stone.diamond_id, participant_id: participantId, participant_timestamp: '2024-05-20T15:00:00Z', polished },
        headers: { 'Idempotency-Key': newIdempotencyKey() },
      }),
    );
  const polished = await polish('AC-0001-P', { carats: '0.91', shape: 'Round', colour: 'G', clarity: 'VS1', cut_grade: 'EX' });
  await refused('polish twice', () => polish('AC-0001-Q', { carats: '0.5', shape: 'Oval' }));
  log(`polished ${polished.diamond_id} from ${stone.diamond_id}`);

  // 7. The manufacturer ships the polished diamond to the retailer, which accepts it.
  const pShipment = await untilKnown(() =>
    unwrap(
      maker.dtp.platform.POST('/v2/transfer/out', {
        body: { recipient_participant_id: retailer.id, name: 'Order 4711', shipment_type: 'polished', diamond_ids: [polished.diamond_id] },
        headers: { 'Idempotency-Key': newIdempotencyKey() },
      }),
    ),
  );
  const pAccepted = await unwrap(
    retailer.dtp.platform.POST('/v2/transfer/in/{shipment_id}/accept', {
      params: { path: { shipment_id: pShipment.id } },
      body: { diamond_ids: [polished.diamond_id] },
      headers: { 'Idempotency-Key': newIdempotencyKey() },
    }),
  );
  log(`retailer accepted ${pShipment.id}: ${pAccepted.status}`);

  // 8. Only the holder lists the graded measurements: the retailer now, no longer the manufacturer.
  const graded = (who: DtpClient) => who.platform.GET('/diamonds/{diamond_id}/graded-measurements', { params: { path: { diamond_id: polished.diamond_id } } });
  const gradedMeasurements = { retailer: (await graded(retailer.dtp)).response.status, manufacturer: (await graded(maker.dtp)).response.status };

  // 9. An insurer (a non-participant) reads the record and its ancestry from search, eventually consistent.
  const insurer = await onboard({ name: 'Lloyds Insurance', role: 'non_participant' });
  const record = await eventually(async () => {
    const { data, response } = await insurer.dtp.search.GET('/v1/diamonds/{diamond_id}', { params: { path: { diamond_id: polished.diamond_id } } });
    // Held and unlocked: the retailer's acceptance has arrived (a shipment unlocks for good; in transit it is not held).
    return response.ok && data?.possession_state === 'held' && data.unlock_status === 'unlocked' ? data : undefined;
  });
  const history = await unwrap(insurer.dtp.search.GET('/v1/diamonds/{diamond_id}/history', { params: { path: { diamond_id: polished.diamond_id } } }));
  log(`search: ${record.lifecycle_state}, ${record.possession_state}; ancestors ${history.ancestors.map((a) => a.diamond_id).join(', ')}`);

  return {
    rough: [r1.diamond_id, r2.diamond_id],
    shipment: { id: shipment.id, status: accepted.status, states: accepted.diamonds.map((d) => d.transfer_state) },
    refusals,
    stone: {
      diamond_id: stone.diamond_id,
      box_id: stone.box_id ?? null,
      provenance: stone.provenance?.provenance_name ?? null,
      producer_uuid: stone.producer_uuid ?? null,
    },
    polished: { diamond_id: polished.diamond_id, diamond_parent_id: polished.diamond_parent_id ?? null, lifecycle_state: polished.lifecycle_state },
    polishedShipment: { id: pShipment.id, status: pAccepted.status },
    gradedMeasurements,
    search: { lifecycle_state: record.lifecycle_state, possession_state: record.possession_state, ancestors: history.ancestors.map((a) => a.diamond_id) },
  };
}

/** Retries a call refused because platform does not know a just-onboarded participant yet (about a second). */
async function untilKnown<T>(call: () => Promise<T>, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await call();
    } catch (err) {
      const unknown = isDtpApiError(err, 422) && err.detail.some((d) => d.type === 'value_error.unknown_participant');
      if (!unknown || Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Polls until `probe` answers something (search follows platform's events within moments). */
async function eventually<T>(probe: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('search did not catch up in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

if (require.main === module) {
  runLifecycleExample({
    authUrl: process.env.AUTH_URL ?? 'http://localhost:3001',
    platformUrl: process.env.PLATFORM_URL ?? 'http://localhost:3002',
    searchUrl: process.env.SEARCH_URL ?? 'http://localhost:3003',
    adminToken: process.env.AUTH_ADMIN_TOKEN ?? 'dev-admin-token',
    log: (line) => process.stdout.write(`${line}\n`),
  }).then(
    (outcome) => process.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
