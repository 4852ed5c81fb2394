/**
 * libs/sdk/examples/lifecycle.ts (docs/lifecycle.md's worked example on the SDK) against a real stack: auth,
 * platform and search on real ports, real PostgreSQL, the SDK's tokens, retries and typed errors.
 */
import { startTestStack } from '@dtp/test-stack';
import { TEST_ADMIN_TOKEN, TEST_AUDIENCES, TestStack } from '@dtp/testing';
import { runLifecycleExample } from '../examples/lifecycle';

describe('the SDK lifecycle example', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth', 'platform', 'search'] });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('walks from the mine to the shop and sees every answer the worked example shows', async () => {
    const lines: string[] = [];
    const outcome = await runLifecycleExample({
      authUrl: stack.urls.auth!,
      platformUrl: stack.urls.platform!,
      searchUrl: stack.urls.search!,
      adminToken: TEST_ADMIN_TOKEN,
      audiences: TEST_AUDIENCES,
      log: (l) => lines.push(l),
    });
    const [r1, r2] = outcome.rough;
    expect(r1).not.toBe(r2);
    expect(outcome.shipment).toEqual({ id: expect.any(String), status: 'completed', states: ['transfer_in_confirmed', 'transfer_in_confirmed'] });
    expect(outcome.refusals).toEqual({
      'ship again': { status: 409, reason: 'in_transit' },
      'accept part of a rough shipment': { status: 409, reason: 'rough_shipment_all_or_nothing' },
      'past the weight limit': { status: 409, reason: 'shipment_weight_exceeded' },
      'polish twice': { status: 409, reason: 'illegal_transition' },
    });
    expect(outcome.stone).toMatchObject({ box_id: outcome.shipment.id, provenance: 'Karowe' });
    expect(outcome.polished).toEqual({ diamond_id: expect.any(String), diamond_parent_id: outcome.stone.diamond_id, lifecycle_state: 'polished' });
    expect(outcome.polishedShipment.status).toBe('completed');
    expect(outcome.gradedMeasurements).toEqual({ retailer: 200, manufacturer: 403 });
    expect(outcome.search).toEqual({ lifecycle_state: 'polished', possession_state: 'held', ancestors: [outcome.stone.diamond_id] });
    expect(lines.length).toBeGreaterThan(5);
  });
});
