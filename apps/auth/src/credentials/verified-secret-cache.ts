import { Inject, Injectable, Optional } from '@nestjs/common';
import { createHmac, randomBytes } from 'node:crypto';
import type { Counter } from 'prom-client';
import { counterOf, ServiceMetrics } from '@dtp/service-kit';
import type { AuthConfig } from '../config';
import { AUTH_CONFIG } from '../tokens';

/** At most this many verified (client, secret) pairs are remembered; the oldest go first. */
export const VERIFIED_SECRET_CACHE_MAX = 10_000;

interface Entry {
  clientId: string;
  /** The stored hash the secret was verified against: a changed hash (new secret) is a miss. */
  storedHash: string;
  expiresAt: number;
}

/**
 * Remembers, for TOKEN_SECRET_CACHE_SECONDS, that a client's secret verified against its stored scrypt hash, so
 * that a repeat client does not pay scrypt (tens of ms of CPU) on every token request (#17).
 *
 * - Keyed by an HMAC-SHA256 of (client_id, secret) under a random key made at start-up and never stored: the
 *   memory holds no secret and nothing an attacker could test guesses against offline.
 * - Only successful verifications are remembered. An unknown client id still costs a full (decoy) scrypt, and so
 *   does a wrong secret for a known client: both answers take the same time (no oracle for which ids exist).
 * - The client row is still read on every request, so a revocation (by this replica or another) refuses the next
 *   request at once; this replica also forgets the client's entries when it revokes it.
 */
@Injectable()
export class VerifiedSecretCache {
  private readonly key = randomBytes(32);
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly checks?: Counter<'outcome'>;

  constructor(@Inject(AUTH_CONFIG) config: AuthConfig, @Optional() @Inject(ServiceMetrics) metrics?: ServiceMetrics) {
    this.ttlMs = config.TOKEN_SECRET_CACHE_SECONDS * 1000;
    if (metrics) {
      this.checks = counterOf(metrics.registry, {
        name: 'auth_client_secret_checks_total',
        help: 'Client secret checks of the token endpoint: verified with scrypt, or answered by the verified-secret cache',
        labelNames: ['outcome'],
      });
    }
  }

  private id(clientId: string, secret: string): string {
    return createHmac('sha256', this.key).update(clientId).update('\0').update(secret).digest('base64url');
  }

  /** True when this (client, secret) verified against `storedHash` less than the TTL ago. */
  has(clientId: string, secret: string, storedHash: string, now = Date.now()): boolean {
    if (this.ttlMs === 0) return false;
    const id = this.id(clientId, secret);
    const entry = this.entries.get(id);
    if (!entry) return false;
    if (entry.expiresAt <= now || entry.storedHash !== storedHash || entry.clientId !== clientId) {
      this.entries.delete(id);
      return false;
    }
    return true;
  }

  remember(clientId: string, secret: string, storedHash: string, now = Date.now()): void {
    if (this.ttlMs === 0) return;
    const id = this.id(clientId, secret);
    this.entries.delete(id);
    if (this.entries.size >= VERIFIED_SECRET_CACHE_MAX) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(id, { clientId, storedHash, expiresAt: now + this.ttlMs });
  }

  /** Forgets every remembered secret of a client (on revocation). */
  forget(clientId: string): void {
    for (const [id, entry] of this.entries) if (entry.clientId === clientId) this.entries.delete(id);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Counts one check (`cached` or `scrypt`) in auth_client_secret_checks_total. */
  count(outcome: 'cached' | 'scrypt'): void {
    this.checks?.inc({ outcome });
  }
}
