import { createHash } from 'node:crypto';
import { EventTypes, Topics, makeEnvelope } from '@dtp/domain';
import type { BlobStore } from '@dtp/blob-store';
import {
  GisTestStack,
  VERIFY_OK,
  client,
  diamondRecord,
  eligibleDiamond,
  feed,
  fixture,
  lab,
  publishDeleted,
  publishUpsert,
  publishedFor,
  putBlob,
  scanReportXml,
  startGis,
  startGisReplica,
  waitApplied,
  waitFor,
} from './gis-helpers';

describe("GIS's view of diamonds (platform.diamonds.v1)", () => {
  let t: GisTestStack;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    t = await startGis();
    api = client(t.gis, (await lab(t)).token);
  });
  afterAll(async () => {
    await t?.close();
  });
  const verify = (id: string) => api.post(`/v2/diamonds/${id}/verify`, VERIFY_OK);

  /** Publishes a marker diamond and waits for it: everything published before it has been consumed. */
  async function drain(): Promise<void> {
    const marker = diamondRecord({ lifecycle: 'rough' });
    await publishUpsert(t, marker, 1);
    await waitApplied(t, marker.diamond_id, 1);
  }

  it('applies only newer revisions: a stale or duplicate event changes nothing', async () => {
    const hash = await putBlob(t, scanReportXml());
    const d = diamondRecord({ reports: [hash], unlock: 'locked' });
    await feed(t, d, 2);
    await publishUpsert(t, { ...d, unlock_status: 'unlocked' }, 1); // stale
    await publishUpsert(t, { ...d, unlock_status: 'unlocked' }, 2); // duplicate revision
    await drain();
    expect((await verify(d.diamond_id)).body).toEqual({ status: 'success', is_locked: true });
    await feed(t, { ...d, unlock_status: 'unlocked' }, 3);
    expect((await verify(d.diamond_id)).body).toEqual({ status: 'success', is_locked: false });
  });

  it('keeps deleted diamonds: 410 even for one GIS never saw, and a later upsert does not bring it back', async () => {
    const id = diamondRecord().diamond_id;
    await publishDeleted(t, id, 5);
    await waitApplied(t, id, 5);
    expect((await verify(id)).status).toBe(410);
    await publishUpsert(t, diamondRecord({ diamondId: id, reports: [await putBlob(t, scanReportXml())] }), 6);
    await waitApplied(t, id, 6);
    expect((await verify(id)).status).toBe(410);
  });

  it('parks an invalid event and goes on with the next ones', async () => {
    const bad = diamondRecord();
    const envelope = makeEnvelope({ event_type: EventTypes.DIAMOND_UPSERTED, data: bad, revision: 1 });
    await t.stack.transport.publish([
      { topic: Topics.PLATFORM_DIAMONDS, key: bad.diamond_id, value: { ...envelope, data: { ...bad, lifecycle_state: 'gem' } } },
      { topic: Topics.PLATFORM_DIAMONDS, key: 'x'.repeat(26), value: 'not json at all' },
    ]);
    const good = await eligibleDiamond(t);
    expect((await verify(good.diamond_id)).status).toBe(200);
    const { rows } = await t.db.query(`SELECT key, reason FROM parked_events ORDER BY id`);
    expect(rows).toEqual([
      { key: bad.diamond_id, reason: expect.stringMatching(/invalid event: .*lifecycle_state/) },
      { key: 'x'.repeat(26), reason: expect.stringMatching(/not valid JSON/) },
    ]);
    expect((await verify(bad.diamond_id)).status).toBe(404);
  });

  it('parses each scan report once per hash, on first sight, and stores the holder', async () => {
    const hash = await putBlob(t, scanReportXml({ weight: '1.5' }));
    const first = await feed(t, diamondRecord({ reports: [hash], holder: 'holder-a' }));
    const { rows: before } = await t.db.query(`SELECT outcome, extracted, parsed_at FROM scan_reports WHERE hash = $1`, [hash]);
    expect(before).toEqual([{ outcome: 'parsed', extracted: expect.objectContaining({ estimated_weight_crt: '1.5' }), parsed_at: expect.any(Date) }]);
    await feed(t, diamondRecord({ reports: [hash] }));
    await verify(first.diamond_id);
    const { rows: after } = await t.db.query(`SELECT parsed_at FROM scan_reports WHERE hash = $1`, [hash]);
    expect(after).toEqual([{ parsed_at: before[0].parsed_at }]);
    const { rows: view } = await t.db.query(`SELECT holder_participant_id, scan_report_hash, carats, shape FROM gis_diamonds WHERE diamond_id = $1`, [
      first.diamond_id,
    ]);
    expect(view).toEqual([{ holder_participant_id: 'holder-a', scan_report_hash: hash, carats: '1.02', shape: 'Round' }]);
  });

  it('a scan report the blob store does not hold yet: 503 with Retry-After, then eligible once it is there', async () => {
    const bytes = scanReportXml({ weight: '0.98' });
    const hash = createHash('sha256').update(bytes).digest('hex');
    const d = await feed(t, diamondRecord({ reports: [hash] }));
    const res = await verify(d.diamond_id);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.body.detail).toMatch(/retry later/);
    expect(publishedFor(t, Topics.GIS_ELIGIBILITY, d.diamond_id)).toEqual([]);
    expect(await putBlob(t, bytes)).toBe(hash);
    expect((await verify(d.diamond_id)).body.status).toBe('success');
    const events = await waitFor(() => {
      const e = publishedFor(t, Topics.GIS_ELIGIBILITY, d.diamond_id);
      return e.length > 0 ? e : undefined;
    });
    expect(events.map((e) => e.data)).toEqual([{ diamond_id: d.diamond_id, gis_status: 'eligible', reason: null }]);
  });

  it('a blob store that fails: 503 and nothing cached; the report is parsed once the store answers again', async () => {
    const bytes = scanReportXml({ weight: '0.97' });
    const d = await feed(t, diamondRecord({ reports: [createHash('sha256').update(bytes).digest('hex')] }));
    const failing: BlobStore = {
      get: async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:9000');
      },
      stat: async () => null,
      has: async () => false,
      put: async () => {
        throw new Error('read only');
      },
    };
    const replica = await startGisReplica(t, { VALIDATION_WORKER_ENABLED: 'false' }, { blobStore: failing });
    try {
      const res = await client(replica.url, (await lab(t)).token).post(`/v2/diamonds/${d.diamond_id}/verify`, VERIFY_OK);
      expect(res.status).toBe(503);
    } finally {
      await replica.close();
    }
    const { rows } = await t.db.query(`SELECT 1 FROM scan_reports s JOIN gis_diamonds g ON g.scan_report_hash = s.hash WHERE g.diamond_id = $1`, [
      d.diamond_id,
    ]);
    expect(rows).toEqual([]);
    await putBlob(t, bytes);
    expect((await verify(d.diamond_id)).body.status).toBe('success');
  });

  describe('hostile and malformed scan reports through the running service', () => {
    const cases: [string, string, string, () => Promise<Buffer>][] = [
      ['XXE with a SYSTEM entity', 'scan_report_not_supported', 'invalid_report', () => fixture('hostile-xxe-system.xml')],
      ['XXE with a parameter entity', 'scan_report_not_supported', 'invalid_report', () => fixture('hostile-xxe-parameter.xml')],
      ['billion laughs', 'scan_report_not_supported', 'invalid_report', () => fixture('hostile-billion-laughs.xml')],
      ['10,000 levels of nesting', 'scan_report_not_supported', 'invalid_report', () => fixture('hostile-deep-nesting.xml')],
      ['an entity reference in a value', 'scan_report_parse_error', 'not_processable', () => fixture('hostile-entity-in-body.xml')],
      ['unclosed elements', 'scan_report_not_supported', 'invalid_report', () => fixture('malformed-unclosed.xml')],
      ['a PNG', 'scan_report_not_supported', 'invalid_report', () => fixture('wrong-type.png')],
      ['a missing required element', 'scan_report_not_supported', 'missing_data', () => fixture('bad-missing-required.xml')],
      ['a 4 MiB text node inside a value', 'scan_report_parse_error', 'not_processable', async () => scanReportXml({ girdle: '7'.repeat(4 * 1024 * 1024) })],
      [
        'a 6 MiB report (over the 5 MiB cap)',
        'scan_report_not_supported',
        'invalid_report',
        async () => Buffer.concat([scanReportXml(), Buffer.from(`<!-- ${'x'.repeat(6 * 1024 * 1024)} -->`)]),
      ],
    ];

    it.each(cases)('%s: 409 %s, gis_status %s, and the service answers the next request', async (_name, reason, status, bytes) => {
      const d = await feed(t, diamondRecord({ reports: [await putBlob(t, await bytes())] }));
      const res = await verify(d.diamond_id);
      expect(res.status).toBe(409);
      expect(res.body.reason).toBe(reason);
      expect(JSON.stringify(res.body)).not.toMatch(/root:x:|lollollol/);
      const events = await waitFor(() => {
        const e = publishedFor(t, Topics.GIS_ELIGIBILITY, d.diamond_id);
        return e.length > 0 ? e : undefined;
      });
      expect((events[0].data as { gis_status: string }).gis_status).toBe(status);
      // Still up: the next request is answered.
      const good = await eligibleDiamond(t);
      expect((await verify(good.diamond_id)).body.status).toBe('success');
      expect((await fetch(`${t.gis}/health/live`)).status).toBe(200);
    });

    it('a 4 MiB text node outside the values is parsed and the diamond is eligible', async () => {
      const bytes = Buffer.from(
        scanReportXml()
          .toString('utf8')
          .replace('<Shape>', `<Notes>${'n'.repeat(4 * 1024 * 1024)}</Notes><Shape>`),
      );
      const d = await feed(t, diamondRecord({ reports: [await putBlob(t, bytes)] }));
      expect((await verify(d.diamond_id)).body.status).toBe('success');
    });
  });

  it('GIS never reuses an event id', async () => {
    const ids = t.published.filter((m) => m.value !== null).map((m) => (m.value as { event_id: string }).event_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThan(0);
  });
});
