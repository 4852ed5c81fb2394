import { DomainError, invalidFields } from '@dtp/domain';
import { DOMAIN_ERROR_STATUS, domainErrorHeaders, RequestValidationException } from '@dtp/service-kit';
import { sampleRow } from '../test/diamond.fixture';
import { diamondInTransit, diamondNotFound, notHolder } from './diamonds/diamond-errors';
import { fileTooLarge } from './files/multipart-upload';
import { assertTransition } from './lifecycle/lifecycle-errors';
import { limitExceeded } from './shipments/shipment-box.resolver';
import { badField, conflict, shipmentNotFound } from './shipments/shipment-errors';
import type { ShipmentRow } from './shipments/shipment.entity';

/** What the kit's filter answers for a domain error: status, the body as sent (key order too), headers. */
function answer(err: unknown): { status: number; body: string; headers: Record<string, string> } {
  expect(err).toBeInstanceOf(DomainError);
  const e = err as DomainError;
  return { status: DOMAIN_ERROR_STATUS[e.kind], body: JSON.stringify(e.body), headers: domainErrorHeaders(e) };
}

function thrown(fn: () => void): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('nothing thrown');
}

const D = '01hv5x4k2m8q9r7s6t5u4v3w2z';

/**
 * Platform's errors are domain errors (no HTTP status in services): these pin the exact answers they give
 * through the kit's filter, byte for byte (the HTTP suites compare bodies with toEqual, blind to key order).
 */
describe('platform error helpers', () => {
  it('diamond errors: 404, 403 not_holder, 409 in_transit', () => {
    expect(answer(diamondNotFound())).toEqual({ status: 404, body: '{"message":"diamond not found"}', headers: {} });
    expect(answer(notHolder(D, 'unlock it'))).toEqual({
      status: 403,
      body: `{"message":"only the holder of diamond ${D} may unlock it","reason":"not_holder"}`,
      headers: {},
    });
    expect(answer(diamondInTransit(D))).toEqual({
      status: 409,
      body:
        `{"message":"diamond ${D} is in transit (in a shipment the recipient has not answered yet); it cannot be changed until the shipment ` +
        'is accepted or rejected","reason":"in_transit"}',
      headers: {},
    });
  });

  it('lifecycle: 409 illegal_transition with from and to after message and reason', () => {
    const err = thrown(() => assertTransition(sampleRow({ diamond_id: D, lifecycle_state: 'polished' }), 'split'));
    expect(answer(err)).toEqual({
      status: 409,
      body: `{"message":"diamond ${D} cannot move from lifecycle_state polished to split (polished is final)","reason":"illegal_transition","from":"polished","to":"split"}`,
      headers: {},
    });
  });

  it('shipments: 404, 422 naming a body field, 409 {message, reason, ...extra}', () => {
    expect(answer(shipmentNotFound())).toEqual({ status: 404, body: '{"message":"shipment not found"}', headers: {} });
    expect(answer(badField('recipient_participant_id', 'a shipment cannot be sent to yourself', 'value_error.self_shipment'))).toEqual({
      status: 422,
      body:
        '{"detail":[{"loc":["body","recipient_participant_id"],"msg":"a shipment cannot be sent to yourself","type":"value_error.self_shipment"}],' +
        '"message":"recipient_participant_id: a shipment cannot be sent to yourself"}',
      headers: {},
    });
    expect(answer(conflict('in_transit', 'already in transit', { diamond_ids: [D] }))).toEqual({
      status: 409,
      body: `{"message":"already in transit","reason":"in_transit","diamond_ids":["${D}"]}`,
      headers: {},
    });
    const shipment = { shipment_id: D, total_diamonds: 2, registered_count: 2, total_carats: '1', registered_carats: '1' } as ShipmentRow;
    expect(answer(limitExceeded(shipment, '0.5')).body).toBe(
      `{"message":"shipment ${D} holds 2 diamond(s) and 2 are already registered against it; no more can be registered",` +
        '"reason":"shipment_count_exceeded","limit_diamonds":2,"registered_diamonds":2}',
    );
  });

  it('files: 413 file_too_large', () => {
    expect(answer(fileTooLarge(65536))).toEqual({
      status: 413,
      body: '{"message":"file is larger than the limit of 65536 bytes","reason":"file_too_large","limit_bytes":65536}',
      headers: {},
    });
  });

  it("a 422 of invalidFields is the body of the validation pipe's RequestValidationException, byte for byte", () => {
    for (const n of [1, 3, 50, 51, 120]) {
      const details = Array.from({ length: n }, (_, i) => ({ loc: i % 2 ? ['body', 'items', i] : ['query'], msg: `bad ${i}`, type: 'value_error' }));
      const pipe = new RequestValidationException(details);
      expect(answer(invalidFields(details))).toEqual({ status: pipe.getStatus(), body: JSON.stringify(pipe.getResponse()), headers: {} });
    }
  });
});
