import { makeEnvelope, Topics, validateEnvelope } from '@dtp/domain';
import type { IncomingMessage } from '../transport';
import { inspectMessage } from './inspect';

const topic = Topics.AUTH_PARTICIPANTS;
const id = '6f1c2d3e-4a5b-4c6d-8e7f-901234567890';
const envelope = makeEnvelope({
  event_type: 'participant.onboarded',
  data: { participant_id: id, name: 'P', role: 'producer', provenance: null },
  revision: 1,
});
const limits = { maxMessageBytes: 2048, maxDepth: 8, validate: validateEnvelope };
const message = (value: unknown, extra: Partial<IncomingMessage> = {}): IncomingMessage => ({ topic, partition: 0, offset: '0', key: id, value, ...extra });

describe('inspectMessage', () => {
  it('gives a valid event, typed by its topic', () => {
    const c = inspectMessage(message(envelope), limits);
    expect(c).toEqual({ kind: 'event', envelope });
    // From JSON text and from bytes alike.
    expect(inspectMessage(message(JSON.stringify(envelope)), limits)).toEqual({ kind: 'event', envelope });
    expect(inspectMessage(message(Buffer.from(JSON.stringify(envelope))), limits)).toEqual({ kind: 'event', envelope });
  });

  it('tells a tombstone (a null value, or null bytes)', () => {
    expect(inspectMessage(message(null), limits)).toEqual({ kind: 'tombstone' });
    expect(inspectMessage(message(undefined), limits)).toEqual({ kind: 'tombstone' });
    expect(inspectMessage(message('ignored', { raw: null }), limits)).toEqual({ kind: 'tombstone' });
  });

  it('parks a value bigger than maxMessageBytes before decoding it (its raw bytes, its text, or its JSON)', () => {
    const big = 'x'.repeat(3000);
    const fromRaw = inspectMessage(
      {
        ...message(undefined),
        raw: Buffer.from(big),
        get value(): unknown {
          throw new Error('decoded');
        },
      },
      limits,
    );
    expect(fromRaw).toEqual({ kind: 'park', park: { reason: 'too_large', text: 'too_large: 3000 bytes, more than the 2048 a message may have' } });
    expect(inspectMessage(message(big), limits)).toMatchObject({ kind: 'park', park: { reason: 'too_large' } });
    const parked = inspectMessage(message({ ...envelope, filler: big }), limits);
    expect(parked).toMatchObject({ kind: 'park', park: { reason: 'too_large' } });
    expect(parked.kind === 'park' && parked.park.text).toMatch(/^too_large: about \d+ bytes as JSON/);
  });

  it('parks a value nested deeper than maxDepth, saying where', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 12; i += 1) deep = { a: deep };
    const c = inspectMessage(message({ ...envelope, data: deep }), limits);
    expect(c).toMatchObject({ kind: 'park', park: { reason: 'too_deep' } });
    expect(c.kind === 'park' && c.park.text).toMatch(/^too_deep: nested more than 8 levels, at data\.a\.a/);
  });

  it('parks what is not JSON, not an envelope of the topic, or keyed otherwise', () => {
    expect(inspectMessage(message('{not json'), limits)).toEqual({
      kind: 'park',
      park: { reason: 'invalid', text: 'invalid event: message value is not valid JSON' },
    });
    const other = inspectMessage(message({ ...envelope, event_type: 'diamond.deleted' }), limits);
    expect(other).toMatchObject({
      kind: 'park',
      park: { reason: 'invalid', text: expect.stringMatching(/^invalid event: event_type diamond.deleted is not published on topic/) },
    });
    expect(inspectMessage(message(envelope, { key: 'another' }), limits)).toEqual({
      kind: 'park',
      park: { reason: 'invalid', text: `message key another differs from envelope key ${id}` },
    });
  });

  it('parks as undecodable whatever throws while decoding or validating, and never throws itself', () => {
    const throwing = {
      ...limits,
      validate: () => {
        throw new Error('validator bug');
      },
    };
    expect(inspectMessage(message(envelope), throwing)).toEqual({
      kind: 'park',
      park: { reason: 'undecodable', text: 'undecodable: decoding or validating it failed: validator bug' },
    });
  });
});
