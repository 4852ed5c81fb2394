import { newDiamondId, VALIDATE_JSON_EXAMPLE, ValidateJsonRequestDto } from '@dtp/domain';
import { lab, newTestService, refusal } from '../../test/test-service';
import type { GisDiamondEntity } from '../diamonds/gis-diamond.entity';

const HASH = 'a'.repeat(64);
const VALUES = {
  shape: 'Round',
  estimated_weight_crt: '1.02',
  girdle_avg_mm: '7.55',
  table_avg_mm: '3.71',
  total_depth_mm: '4.2',
  crown_angle_avg_deg: null,
  pavilion_angle_avg_deg: null,
};
const body = (over: Partial<ValidateJsonRequestDto> = {}): ValidateJsonRequestDto => ({ ...VALIDATE_JSON_EXAMPLE, ...over });

/** Services with one eligible polished diamond (its parsed report attached) that lab-1 has verified. */
function eligible(over: Partial<GisDiamondEntity> = {}) {
  const t = newTestService();
  const id = newDiamondId();
  t.scanReports.put({ hash: HASH, extracted: VALUES });
  t.diamonds.put({ diamond_id: id, scan_report_hash: HASH, gis_status: 'eligible', ...over });
  t.verifications.succeeded(id, 'lab-1');
  return { t, id };
}

describe('ValidationService.accept (in-memory repositories)', () => {
  it('queues a Pending job for the diamond and lab against its newest scan report, and answers where to poll', async () => {
    const { t, id } = eligible();
    const accepted = await t.validation.accept(id, body(), lab());
    expect(accepted).toEqual({
      diamond_id: id,
      request_id: expect.any(String),
      status_url: `https://gis.example/v2/diamonds/${id}/validate/${accepted.request_id}`,
      verification_status: 'Pending',
    });
    expect(t.requests.rows).toEqual([
      expect.objectContaining({
        request_id: accepted.request_id,
        diamond_id: id,
        lab_participant_id: 'lab-1',
        scan_report_hash: HASH,
        status: 'Pending',
        request: body(),
      }),
    ]);
    // The stored gis_status already matched the assessment: no eligibility event.
    expect(t.uow.outboxWrites()).toEqual([]);
  });

  it('refuses a shape_group that is neither a shape nor a group: 422 on shape_group (type enum), before anything else', async () => {
    const t = newTestService();
    const r = await refusal(t.validation.accept(newDiamondId(), body({ shape_group: 'Blob' }), lab()));
    expect(r.kind).toBe('invalid');
    expect(r.body.detail).toEqual([{ loc: ['body', 'shape_group'], msg: 'shape_group must be a shape or a shape group name', type: 'enum' }]);
  });

  it('answers 404 for a diamond gis never heard of, 410 for a deleted one', async () => {
    const t = newTestService();
    expect((await refusal(t.validation.accept(newDiamondId(), body(), lab()))).kind).toBe('not_found');
    const { t: t2, id } = eligible({ deleted: true });
    expect(await refusal(t2.validation.accept(id, body(), lab()))).toEqual({ kind: 'gone', body: { reason: 'diamond_has_been_deleted', detail: null } });
    expect(t2.requests.rows).toEqual([]);
  });

  it('answers 409 diamond_is_not_polished for a rough diamond, 409 diamond_has_no_scan_report without a report', async () => {
    const rough = eligible({ lifecycle_state: 'rough', gis_status: null });
    const r1 = await refusal(rough.t.validation.accept(rough.id, body(), lab()));
    expect([r1.kind, r1.body.reason]).toEqual(['conflict', 'diamond_is_not_polished']);

    const bare = eligible({ scan_report_hash: null, gis_status: 'missing_report', gis_reason: 'diamond_has_no_scan_report' });
    expect(await refusal(bare.t.validation.accept(bare.id, body(), lab()))).toEqual({
      kind: 'conflict',
      body: { reason: 'diamond_has_no_scan_report', detail: 'no scan report is attached to the diamond' },
    });
  });

  it('answers 409 shape_not_supported for a declared shape of group Other (verify would proceed, validate does not)', async () => {
    const { t, id } = eligible({ shape: 'Kite', gis_status: 'shape_not_supported', gis_reason: 'shape_not_supported' });
    const r = await refusal(t.validation.accept(id, body(), lab()));
    expect(r.kind).toBe('conflict');
    expect(r.body.reason).toBe('shape_not_supported');
    expect(t.requests.rows).toEqual([]);
  });

  it('answers 412 no_successful_verify to a lab that has not verified the diamond (another lab has)', async () => {
    const { t, id } = eligible();
    expect(await refusal(t.validation.accept(id, body(), lab('lab-2')))).toEqual({
      kind: 'precondition_failed',
      body: { reason: 'no_successful_verify', detail: 'no successful verify request by this lab exists for this diamond; call verify first' },
    });
    expect(t.requests.rows).toEqual([]);
  });

  it('answers 503 while the attached report is not in the file store yet, and queues nothing', async () => {
    const { t, id } = eligible({ scan_report_hash: 'b'.repeat(64) });
    expect((await refusal(t.validation.accept(id, body(), lab()))).kind).toBe('unavailable');
    expect(t.requests.rows).toEqual([]);
  });

  it('publishes eligibility.changed when the assessment differs from the stored gis_status', async () => {
    const { t, id } = eligible({ gis_status: null });
    await t.validation.accept(id, body(), lab());
    expect(t.uow.outboxWrites()).toEqual([['gis.eligibility.v1', id, 'eligibility.changed']]);
    expect(t.diamonds.rows.get(id)).toMatchObject({ gis_status: 'eligible', gis_reason: null, eligibility_revision: '1' });
  });
});

describe('ValidationService.poll and history (in-memory repositories)', () => {
  it("polls a lab's own request, and answers 404 to another lab", async () => {
    const { t, id } = eligible();
    t.verifications.succeeded(id, 'lab-2');
    const { request_id } = await t.validation.accept(id, body(), lab());
    expect(await t.validation.poll(id, request_id, lab())).toMatchObject({ diamond_id: id, request_id, verification_status: 'Pending', parameters: null });
    expect((await refusal(t.validation.poll(id, request_id, lab('lab-2')))).kind).toBe('not_found');
  });

  it('lists only answered requests, marks them expired after the expiry, and answers 404 for an unknown diamond', async () => {
    const { t, id } = eligible();
    const { request_id } = await t.validation.accept(id, body(), lab());
    expect(await t.validation.history(id, lab())).toEqual([]);
    Object.assign(t.requests.rows[0], { status: 'Verified', answered_at: new Date(Date.now() - 2 * 3600 * 1000) });
    expect(await t.validation.history(id, lab())).toEqual([expect.objectContaining({ request_id, verification_status: 'Verified', expired: true })]);
    expect((await refusal(t.validation.history(newDiamondId(), lab()))).kind).toBe('not_found');
  });
});
