import type { DiamondV1 } from '@dtp/domain';
import { sampleRow } from '../../test/diamond.fixture';
import { newDiamondWrite } from '../diamonds/diamond-changes';
import { diamondDeleted } from '../diamonds/diamond-events';
import { diamondUpdatedEvents } from './participant-events';

describe('diamondUpdatedEvents: the feed events of a change and its outbox events, the record written once', () => {
  const write = (over: Parameters<typeof sampleRow>[0] = {}) =>
    newDiamondWrite(sampleRow({ holder_id: 'p-holder', uploader_id: 'p-uploader', ...over }), 'p-holder', null, new Date('2024-05-01T00:00:00Z')).write;

  it('writes each data and payload text as JSON.stringify does, for one and for several diamonds', () => {
    const writes = [write(), write({ diamond_id: 'd-2', box_description: 'r\u00e9\u{1F48E}"\\\n', holder_id: 'p-other' })];
    const events = writes.flatMap((w) => w.events);
    const { notices, outbox } = diamondUpdatedEvents({ rows: writes.map((w) => w.row), entries: writes.map((w) => w.entry), events });
    expect(outbox).toHaveLength(events.length);
    outbox.forEach((e, i) => {
      expect(e.payload).toBe(events[i].payload);
      expect(e.payloadText).toBe(JSON.stringify(events[i].payload));
      // Written once, by diamondUpserted: the record's text (the registration answers it) and the envelope's.
      expect(events[i].dataText).toBe(JSON.stringify((events[i].payload as { data: unknown }).data));
      expect(e.payloadText).toBe(events[i].payloadText);
    });
    // Holder and uploader of each diamond, each with the record and the custody action first.
    expect(notices.map((n) => [n.participant_id, n.subject])).toEqual([
      ['p-holder', writes[0].row.diamond_id],
      ['p-uploader', writes[0].row.diamond_id],
      ['p-other', 'd-2'],
      ['p-uploader', 'd-2'],
    ]);
    for (const [i, n] of notices.entries()) {
      const record = (events[i < 2 ? 0 : 1].payload as { data: DiamondV1 }).data;
      expect(n.data).toBe(JSON.stringify({ action: 'registered', ...record }));
    }
  });

  it('leaves other events as they are, and writes a record it cannot prefix whole', () => {
    const w = write();
    const deleted = diamondDeleted(w.row.diamond_id, 2);
    // An event made elsewhere, with no texts written (diamondUpserted writes them for its record).
    const withData = (data: object) => {
      const { payloadText: _p, dataText: _d, ...event } = w.events[0];
      return { ...event, payload: { ...(event.payload as object), data } };
    };
    // An index-like member comes before `action` in any object; a member named action replaces it.
    const odd = [withData({ 0: 'index-like', n: 1 }), withData({ action: 'x', n: 2 })];
    const { notices, outbox } = diamondUpdatedEvents({ rows: [w.row], entries: [w.entry], events: [...deleted, ...odd] });
    expect(outbox.slice(0, 2)).toEqual(deleted);
    expect(outbox.slice(2).map((e) => e.payloadText)).toEqual(odd.map((e) => JSON.stringify(e.payload)));
    expect(notices.map((n) => JSON.parse(n.data) as unknown)).toEqual([
      { 0: 'index-like', action: 'registered', n: 1 },
      { 0: 'index-like', action: 'registered', n: 1 },
      { action: 'x', n: 2 },
      { action: 'x', n: 2 },
    ]);
    expect(notices[0].data).toBe(JSON.stringify({ action: 'registered', ...odd[0].payload.data }));
    expect(notices[2].data).toBe(JSON.stringify({ action: 'registered', ...odd[1].payload.data }));
  });
});
