import { ClientDenyList } from './deny-list';

describe('ClientDenyList', () => {
  const T = Date.parse('2025-11-21T10:00:00.500Z');
  let now = T;
  const list = () => new ClientDenyList({ marginSeconds: 60, retainSeconds: 3600 + 185, now: () => now });
  beforeEach(() => {
    now = T;
  });

  it("refuses tokens of a revoked client issued up to the revocation time plus the margin, and no other client's", () => {
    const d = list();
    expect(d.refuses('c1', T / 1000)).toBe(false);
    expect(d.revoke('c1', new Date(T).toISOString())).toBe(true);
    expect(d.refuses('c1', Math.floor(T / 1000) - 3000)).toBe(true); // issued long before
    expect(d.refuses('c1', Math.floor(T / 1000))).toBe(true); // the same second
    expect(d.refuses('c1', Math.floor(T / 1000) + 60)).toBe(true); // within the margin
    expect(d.refuses('c1', Math.floor(T / 1000) + 61)).toBe(false); // past it (auth issues none; a re-admitted id)
    expect(d.refuses('c2', Math.floor(T / 1000) - 3000)).toBe(false);
    expect(d.size).toBe(1);
  });

  it('is idempotent, keeps the latest time given, and takes Date, text and milliseconds', () => {
    const d = list();
    d.revoke('c1', T);
    d.revoke('c1', new Date(T - 5000));
    expect(d.revokedAtOf('c1')).toEqual(new Date(T));
    d.revoke('c1', new Date(T + 5000).toISOString());
    expect(d.revokedAtOf('c1')).toEqual(new Date(T + 5000));
    expect(d.size).toBe(1);
    expect(() => d.revoke('c1', 'yesterday')).toThrow(RangeError);
  });

  it('does not keep revocations whose tokens have all expired, and drops entries once they have', () => {
    const d = list();
    expect(d.revoke('old', T - (3600 + 185) * 1000)).toBe(false);
    expect(d.size).toBe(0);
    d.revoke('c1', T);
    now = T + (3600 + 185) * 1000 + 1; // a prune happens at most once a minute, on the next revocation
    d.revoke('c2', now);
    expect(d.revokedAtOf('c1')).toBeUndefined();
    expect(d.size).toBe(1);
  });
});
