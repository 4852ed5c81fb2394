import { envelope, pageCount } from './paging';

describe('paging', () => {
  const base = 'https://api.example.com/platform/';
  const path = '/v2/shipment/inbound';

  it('counts pages (none for an empty list)', () => {
    expect(pageCount(0, 50)).toBe(0);
    expect(pageCount(1, 50)).toBe(1);
    expect(pageCount(100, 50)).toBe(2);
    expect(pageCount(101, 50)).toBe(3);
  });

  it('builds absolute links that keep the filters and the page size', () => {
    const e = envelope(base, path, { page: 2, pageSize: 10, filters: { shipment_type: 'rough' } }, 35, ['x']);
    expect(e).toEqual({
      next: 'https://api.example.com/platform/v2/shipment/inbound?shipment_type=rough&page=3&page_size=10',
      previous: 'https://api.example.com/platform/v2/shipment/inbound?shipment_type=rough&page=1&page_size=10',
      page: 2,
      pages: 4,
      total: 35,
      results: ['x'],
    });
  });

  it('has no previous on the first page, no next on the last, and leaves out absent filters', () => {
    const first = envelope(base, path, { page: 1, pageSize: 50, filters: { shipment_type: undefined } }, 50, []);
    expect(first.previous).toBeNull();
    expect(first.next).toBeNull();
    expect(first.pages).toBe(1);
    const last = envelope(base, path, { page: 3, pageSize: 10, filters: {} }, 30, []);
    expect(last.next).toBeNull();
    expect(last.previous).toBe('https://api.example.com/platform/v2/shipment/inbound?page=2&page_size=10');
  });

  it('points previous of a page past the end at the last page', () => {
    const e = envelope(base, path, { page: 9, pageSize: 10, filters: {} }, 25, []);
    expect(e.next).toBeNull();
    expect(e.previous).toBe('https://api.example.com/platform/v2/shipment/inbound?page=3&page_size=10');
    expect(envelope(base, path, { page: 2, pageSize: 10, filters: {} }, 0, []).previous).toBeNull();
  });
});
