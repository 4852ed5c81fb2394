import { Topics } from '@dtp/domain';
import { startTestStack } from '@dtp/test-stack';
import { participantWithToken, TestStack } from '@dtp/testing';
import { diamondRecord, eventually, upserted } from './support';

/**
 * GET /v1/diamonds/{id} sends the record's stored JSON text as it is: the same bytes and content type as the
 * record serialised by Fastify (JSON.stringify of the event's data), whatever the record holds.
 */
describe('search: the current record as stored text', () => {
  let stack: TestStack;
  let search: string;
  let token: string;

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth', 'search'] });
    search = stack.urls.search!;
    token = (await participantWithToken(stack, 'non_participant', 'search')).token;
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('answers exactly the bytes of JSON.stringify(record), as application/json; charset=utf-8', async () => {
    const record = diamondRecord({
      participant_id: `Zürich "sight" \\ 💎 \u2028 tab\there <b> ${Date.now()}`,
      box_id: 'box/ü',
      provenance: { provenance_name: 'Mine « Ø »', provenance_type: 'mine', is_locked: true, is_country_code_available: true, country_code: 'BW' },
    });
    await stack.transport.publish([{ topic: Topics.PLATFORM_DIAMONDS, key: record.diamond_id, value: upserted(record, 1) }]);
    const res = await eventually(async () => {
      const r = await fetch(`${search}/v1/diamonds/${record.diamond_id}`, { headers: { authorization: token } });
      return r.status === 200 ? r : undefined;
    }, 'the record visible');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const text = await res.text();
    expect(text).toBe(JSON.stringify(JSON.parse(JSON.stringify(record))));
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(JSON.parse(text)).toEqual(record);
  });

  it('answers 404 with a JSON message for an unknown or malformed id', async () => {
    for (const id of ['00000000000000000000000000', 'NOT-AN-ID']) {
      const res = await fetch(`${search}/v1/diamonds/${id}`, { headers: { authorization: token } });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.json()).toEqual({ message: expect.stringContaining('not found') });
    }
  });
});
