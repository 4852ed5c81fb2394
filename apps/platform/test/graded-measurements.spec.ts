import { makeEnvelope, Topics } from '@dtp/domain';
import type { DiamondV1, GisStatus, GradedMeasurementsResponse, GradingDataView, GradingSubmittedData } from '@dtp/domain';
import type { ParticipantWithToken } from '@dtp/testing';
import { call, outboxCount, outboxRows, participant, participantKnown, PlatformFixture, register, startPlatform } from './helpers';

describe('graded measurements', () => {
  let f: PlatformFixture;
  let producer: ParticipantWithToken;

  const path = (d: DiamondV1) => `/diamonds/${d.diamond_id}/graded-measurements`;
  const add = async (d: DiamondV1, body: Record<string, unknown> = { carats: 1.01 }) => {
    const res = await call<GradingDataView>(f, 'POST', path(d), producer.token, body);
    if (res.status !== 201) throw new Error(`add failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const select = (d: DiamondV1, id: string, who = producer) => call<GradingDataView>(f, 'PATCH', `/diamonds/${d.diamond_id}/${id}/select`, who.token);
  const deselect = (d: DiamondV1, id: string, who = producer) => call<GradingDataView>(f, 'PATCH', `/diamonds/${d.diamond_id}/${id}/deselect`, who.token);
  const latest = async (d: DiamondV1) => {
    const rows = await outboxRows(f, d.diamond_id);
    return { revision: Number(rows[rows.length - 1].revision), record: rows[rows.length - 1].payload!.data as unknown as DiamondV1 };
  };
  const activeCount = async (d: DiamondV1) =>
    (await f.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM graded_measurements WHERE diamond_id = $1 AND is_active`, [d.diamond_id])).rows[0].n;

  beforeAll(async () => {
    f = await startPlatform();
    producer = await participant(f, 'producer');
    await participantKnown(f, producer.participant_id);
  });
  afterAll(async () => {
    await f?.close();
  });

  it("lists nothing at first, then the holder's own records (source user, inactive, selectable, decimals as text)", async () => {
    const d = await register(f, producer);
    expect(await call(f, 'GET', path(d), producer.token)).toMatchObject({ status: 200, body: { results: [] } });
    const before = await outboxCount(f);
    const gm = await add(d, {
      carats: 1.01,
      colour: 'E',
      clarity: 'VS1',
      shape: 'Round',
      table_percent: '57.5',
      grader_inscription_numbers: ['GIA 1'],
      graded_date: '2024-04-01T00:00:00Z',
    });
    expect(gm).toEqual({
      id: expect.any(String),
      source: 'user',
      is_active: false,
      is_selectable: true,
      carats: '1.01',
      colour: 'E',
      clarity: 'VS1',
      shape: 'Round',
      table_percent: '57.5',
      grader_inscription_numbers: ['GIA 1'],
      graded_date: '2024-04-01T00:00:00Z',
    });
    // Adding a record is not a change of the diamond record (only the active one is shown there).
    expect(await outboxCount(f)).toBe(before);
    const list = await call<GradedMeasurementsResponse>(f, 'GET', path(d), producer.token);
    expect(list.body.results).toEqual([gm]);
  });

  it('answers 422 for bad graded-measurement bodies', async () => {
    const d = await register(f, producer);
    for (const [body, loc] of [
      [{ colour: 'ZZ' }, 'body.colour'],
      [{ carats: -2 }, 'body.carats'],
      [{ shape: 'Blob' }, 'body.shape'],
      [{ wrong: 1 }, 'body.wrong'],
      [{ supplementary_files: { a: 1 } }, 'body.supplementary_files'],
    ] as const) {
      const res = await call<{ detail: { loc: unknown[] }[] }>(f, 'POST', path(d), producer.token, body);
      expect({ loc, status: res.status }).toEqual({ loc, status: 422 });
      expect(res.body.detail.map((x) => x.loc.join('.'))).toContain(loc);
    }
  });

  it("select makes one record active, deactivates the previous one, and shows it in the diamond's grading", async () => {
    const d = await register(f, producer);
    const a = await add(d, { carats: 1.0, colour: 'F' });
    const b = await add(d, { carats: 1.02, colour: 'G' });

    const selA = await select(d, a.id);
    expect(selA).toMatchObject({ status: 200, body: { ...a, is_active: true } });
    let now = await latest(d);
    expect(now.revision).toBe(2);
    expect(now.record.grading).toEqual([{ ...a, is_active: true }]);

    const selB = await select(d, b.id);
    expect(selB.body.is_active).toBe(true);
    now = await latest(d);
    expect(now.revision).toBe(3);
    expect(now.record.grading).toEqual([{ ...b, is_active: true }]);
    const list = (await call<GradedMeasurementsResponse>(f, 'GET', path(d), producer.token)).body.results;
    expect(list.map((g) => [g.id, g.is_active])).toEqual([
      [a.id, false],
      [b.id, true],
    ]);

    // Selecting the active one again changes nothing.
    expect((await select(d, b.id)).status).toBe(200);
    expect((await latest(d)).revision).toBe(3);

    // Deselect: no record is shown; repeating it changes nothing.
    expect(await deselect(d, b.id)).toMatchObject({ status: 200, body: { id: b.id, is_active: false } });
    now = await latest(d);
    expect(now.revision).toBe(4);
    expect(now.record.grading).toBeNull();
    expect((await deselect(d, b.id)).status).toBe(200);
    expect((await deselect(d, a.id)).status).toBe(200);
    expect((await latest(d)).revision).toBe(4);
    expect(await activeCount(d)).toBe(0);
    const { rows } = await f.db.query(`SELECT revision FROM diamonds WHERE diamond_id = $1`, [d.diamond_id]);
    expect(rows[0].revision).toBe('4');
  });

  it('keeps at most one active record under concurrent selects and deselects', async () => {
    const d = await register(f, producer);
    const records: GradingDataView[] = [];
    for (let i = 0; i < 8; i++) records.push(await add(d, { carats: 1 + i / 100 }));
    for (let round = 0; round < 3; round++) {
      const calls = Array.from({ length: 24 }, (_, i) => (i % 5 === 4 ? deselect(d, records[(i * 3) % 8].id) : select(d, records[(i * 7 + round) % 8].id)));
      const results = await Promise.all(calls);
      expect(results.every((r) => r.status === 200)).toBe(true);
      expect(await activeCount(d)).toBeLessThanOrEqual(1);
    }
    // Selects alone always leave exactly one active, and the diamond's last event shows that one.
    const results = await Promise.all(records.map((r) => select(d, r.id)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(await activeCount(d)).toBe(1);
    const active = (await f.db.query<{ id: string }>(`SELECT id FROM graded_measurements WHERE diamond_id = $1 AND is_active`, [d.diamond_id])).rows[0].id;
    const now = await latest(d);
    expect(now.record.grading!.map((g) => g.id)).toEqual([active]);
    // Every change is one version: revisions are consecutive, each with one outbox row.
    const revisions = (await outboxRows(f, d.diamond_id)).map((r) => Number(r.revision));
    expect(revisions).toEqual(revisions.map((_, i) => i + 1));
    const { rows } = await f.db.query(`SELECT revision FROM diamonds WHERE diamond_id = $1`, [d.diamond_id]);
    expect(Number(rows[0].revision)).toBe(revisions.length);
  });

  it('answers 409 not_selectable for a record that may not be selected, changing nothing', async () => {
    const d = await register(f, producer);
    const a = await add(d);
    await f.db.query(`UPDATE graded_measurements SET is_selectable = false WHERE id = $1`, [a.id]);
    const before = await outboxCount(f);
    expect(await select(d, a.id)).toMatchObject({ status: 409, body: { reason: 'not_selectable', message: expect.any(String) } });
    expect(await activeCount(d)).toBe(0);
    expect(await outboxCount(f)).toBe(before);
  });

  it('the database itself refuses a second active record', async () => {
    const d = await register(f, producer);
    const a = await add(d);
    const b = await add(d);
    await f.db.query(`UPDATE graded_measurements SET is_active = true WHERE id = $1`, [a.id]);
    await expect(f.db.query(`UPDATE graded_measurements SET is_active = true WHERE id = $1`, [b.id])).rejects.toMatchObject({ code: '23505' });
  });

  it('answers 404 for unknown records, records of another diamond and unknown diamonds; 403 for diamonds the caller does not hold', async () => {
    const d = await register(f, producer);
    const e = await register(f, producer);
    const a = await add(d);
    const other = await participant(f, 'manufacturer');
    const before = await outboxCount(f);
    expect(await select(d, 'no-such-grading')).toMatchObject({ status: 404, body: { message: 'graded measurement not found' } });
    expect((await select(e, a.id)).status).toBe(404);
    expect((await deselect(e, a.id)).status).toBe(404);
    const notHolder = (action: string) => ({
      status: 403,
      body: { message: `only the holder of diamond ${d.diamond_id} may ${action}`, reason: 'not_holder' },
    });
    expect(await call(f, 'GET', path(d), other.token)).toMatchObject(notHolder('list its graded measurements'));
    expect(await call(f, 'POST', path(d), other.token, { carats: 1 })).toMatchObject(notHolder('add graded measurements to it'));
    expect(await select(d, a.id, other)).toMatchObject(notHolder('select its graded measurements'));
    expect(await deselect(d, a.id, other)).toMatchObject(notHolder('deselect its graded measurements'));
    expect(await call(f, 'GET', '/diamonds/01hzzzzzzzzzzzzzzzzzzzzzzz/graded-measurements', producer.token)).toMatchObject({
      status: 404,
      body: { message: 'diamond not found' },
    });
    expect((await call(f, 'GET', path(d), null)).status).toBe(401);
    expect(await outboxCount(f)).toBe(before);
  });

  const publish = async (topic: string, envelope: { key: string }) => f.stack.transport.publish([{ topic, key: envelope.key, value: envelope }]);
  const eventually = async <T>(probe: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> => {
    const until = Date.now() + ms;
    for (;;) {
      const v = await probe();
      if (ok(v) || Date.now() > until) return v;
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('records a lab grading arriving on gis.gradings.v1 once (redelivery changes nothing), selectable like any other', async () => {
    const d = await register(f, producer);
    const data: GradingSubmittedData = {
      diamond_id: d.diamond_id,
      grading_id: `gis-${d.diamond_id}`,
      submitted_by: null,
      data: {
        grader_certificate_number: 'C-1',
        grader_report_number: 'R-1',
        grading_lab: 'Other',
        graded_date: '2024-05-01T00:00:00Z',
        carats: '1.01',
        shape: 'Round',
        colour: 'D',
      },
    };
    const before = await outboxCount(f);
    const envelope = makeEnvelope({ event_type: 'grading.submitted', data, revision: 1 });
    await publish(Topics.GIS_GRADINGS, envelope);
    await publish(Topics.GIS_GRADINGS, envelope); // a redelivery
    const list = (
      await eventually(
        () => call<GradedMeasurementsResponse>(f, 'GET', path(d), producer.token),
        (r) => r.body.results.length > 0,
      )
    ).body.results;
    expect(list).toEqual([{ id: data.grading_id, source: 'gis', is_active: false, is_selectable: true, ...data.data }]);
    // A second grading of the same diamond (next revision) is recorded too; the redelivery was not.
    const second = { ...data, grading_id: `gis2-${d.diamond_id}` };
    await publish(Topics.GIS_GRADINGS, makeEnvelope({ event_type: 'grading.submitted', data: second, revision: 2 }));
    const both = await eventually(
      async () => (await call<GradedMeasurementsResponse>(f, 'GET', path(d), producer.token)).body.results,
      (r) => r.length === 2,
    );
    expect(both.map((g) => g.id).sort()).toEqual([data.grading_id, second.grading_id].sort());
    expect(await outboxCount(f)).toBe(before); // an inactive record is not a change of the diamond record
    expect((await select(d, data.grading_id)).status).toBe(200);
    expect((await latest(d)).record.grading).toEqual([{ ...list[0], is_active: true }]);
  });

  it('parks a grading for an unknown diamond and keeps consuming', async () => {
    const ghost = {
      diamond_id: '01hzzzzzzzzzzzzzzzzzzzzzzz',
      grading_id: 'ghost',
      submitted_by: null,
      data: {
        grader_certificate_number: 'C',
        grader_report_number: 'R',
        grading_lab: 'Other',
        graded_date: '2024-05-01T00:00:00Z',
        carats: '1',
        shape: 'Round',
      },
    } as GradingSubmittedData;
    await publish(Topics.GIS_GRADINGS, makeEnvelope({ event_type: 'grading.submitted', data: ghost, revision: 1 }));
    const parked = await eventually(
      async () => (await f.db.query<{ reason: string }>(`SELECT reason FROM parked_events WHERE key = $1`, [ghost.diamond_id])).rows,
      (r) => r.length > 0,
    );
    expect(parked[0].reason).toMatch(/not found/);
  });

  it('shows the gis_status from gis.eligibility.v1 on the record, as a new version, once per change', async () => {
    const d = await register(f, producer);
    expect(d.gis_status).toBeNull();
    const status = (revision: number, gis_status: GisStatus | null) =>
      publish(Topics.GIS_ELIGIBILITY, makeEnvelope({ event_type: 'eligibility.changed', data: { diamond_id: d.diamond_id, gis_status }, revision }));
    await status(1, 'missing_report');
    const first = await eventually(
      () => latest(d),
      (l) => l.record.gis_status === 'missing_report',
    );
    expect(first).toMatchObject({ revision: 2, record: { gis_status: 'missing_report' } });
    expect(first.record.version_id).not.toBe(d.version_id);
    await status(1, 'eligible'); // stale redelivery of revision 1: ignored
    await status(2, 'eligible');
    const second = await eventually(
      () => latest(d),
      (l) => l.record.gis_status === 'eligible',
    );
    expect(second.revision).toBe(3);
    expect((await outboxRows(f, d.diamond_id)).map((r) => r.payload?.data && (r.payload.data as unknown as DiamondV1).gis_status)).toEqual([
      null,
      'missing_report',
      'eligible',
    ]);
  });
});
