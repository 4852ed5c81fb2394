/**
 * Revoked clients, in memory (docs/auth.md "Revocation"): client_id -> the time auth revoked it. A token of a
 * revoked client is refused when its `iat` is not later than the revocation time plus a margin. auth issues no
 * token to a revoked client, so the margin refuses nothing legitimate; it covers a token request that was
 * authenticated just before the revocation committed and signed just after (its `iat` is whole seconds), and
 * clock differences between auth's hosts and its database.
 *
 * The list stays small: an entry is dropped once every token it can refuse has expired (revocation time + margin
 * + the longest token lifetime + the skew and tolerance the verifier grants on `exp`).
 */
export interface ClientDenyListOptions {
  /** Seconds after `revoked_at` during which an `iat` still counts as "before the revocation" (default 60). */
  marginSeconds?: number;
  /** Seconds after `revoked_at` an entry is kept; afterwards every token it could refuse has expired. */
  retainSeconds: number;
  /** Clock, for tests (default Date.now). */
  now?: () => number;
}

export class ClientDenyList {
  private readonly revokedAt = new Map<string, number>();
  private readonly marginMs: number;
  private readonly retainMs: number;
  private readonly now: () => number;
  private nextPrune = 0;

  constructor(opts: ClientDenyListOptions) {
    this.marginMs = (opts.marginSeconds ?? 60) * 1000;
    this.retainMs = opts.retainSeconds * 1000;
    this.now = opts.now ?? Date.now;
  }

  /**
   * Records a revocation (idempotent; a later time for the same client widens it). One so old that every token it
   * could refuse has expired is not kept. Returns whether the list now refuses some of the client's tokens.
   */
  revoke(clientId: string, revokedAt: Date | string | number): boolean {
    const at = revokedAt instanceof Date ? revokedAt.getTime() : typeof revokedAt === 'string' ? Date.parse(revokedAt) : revokedAt;
    if (!Number.isFinite(at)) throw new RangeError(`revoked_at is not a time: ${String(revokedAt)}`);
    this.prune();
    if (at + this.retainMs <= this.now()) return false;
    const held = this.revokedAt.get(clientId);
    if (held === undefined || at > held) this.revokedAt.set(clientId, at);
    return true;
  }

  /** True when a token of `clientId` issued at `iatSeconds` (JWT `iat`) must be refused. */
  refuses(clientId: string, iatSeconds: number): boolean {
    const at = this.revokedAt.get(clientId);
    return at !== undefined && iatSeconds * 1000 <= at + this.marginMs;
  }

  /** The revocation time held for a client, if any. */
  revokedAtOf(clientId: string): Date | undefined {
    const at = this.revokedAt.get(clientId);
    return at === undefined ? undefined : new Date(at);
  }

  get size(): number {
    return this.revokedAt.size;
  }

  /** Drops entries whose tokens have all expired (at most once a minute). */
  private prune(): void {
    const now = this.now();
    if (now < this.nextPrune) return;
    this.nextPrune = now + 60_000;
    for (const [clientId, at] of this.revokedAt) if (at + this.retainMs <= now) this.revokedAt.delete(clientId);
  }
}
