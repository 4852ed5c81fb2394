import type { CustodyAnswer, DiamondV1, OriginStatus } from '@dtp/domain';

export interface Origin {
  status: OriginStatus;
  /** ISO 3166-1 alpha-2, sorted, distinct; empty unless confirmed. */
  countries: string[];
  /** The root diamonds the chain reaches (producers' registrations, or a root registered without links). */
  roots: string[];
}

/**
 * Where a diamond comes from, by its custody chain: the roots are the diamonds of the answer whose first entry links to
 * nothing (`prev_entry_hash` null and no `links`), reached through every split, polish and registration against a
 * shipment; their provenance (search's current record of each) names the countries. Confirmed only when every root
 * has a country: one without (provenance not set yet, a producer whose onboarding had not arrived, a deleted root) makes
 * the whole origin pending, and then no country is claimed.
 */
export function originOf(answer: CustodyAnswer, records: ReadonlyMap<string, DiamondV1 | null>): Origin {
  const first = new Map<string, CustodyAnswer['entries'][number]>();
  for (const e of answer.entries) if (!first.has(e.entry.diamond_id)) first.set(e.entry.diamond_id, e);
  const roots = [...first.values()]
    .filter((e) => e.entry.prev_entry_hash === null && !(e.entry.links && e.entry.links.length > 0))
    .map((e) => e.entry.diamond_id);
  const countries = new Set<string>();
  let confirmed = roots.length > 0;
  for (const id of roots) {
    const p = records.get(id)?.provenance;
    const code = p?.is_country_code_available ? p.country_code : null;
    if (typeof code === 'string' && /^[A-Z]{2}$/.test(code)) countries.add(code);
    else confirmed = false;
  }
  return confirmed ? { status: 'confirmed', countries: [...countries].sort(), roots } : { status: 'pending', countries: [], roots };
}

/** The diamonds of the answer whose first entry links to nothing (no `prev_entry_hash`, no `links`), oldest first. */
export function rootsOf(answer: CustodyAnswer): string[] {
  const first = new Map<string, CustodyAnswer['entries'][number]>();
  for (const e of answer.entries) if (!first.has(e.entry.diamond_id)) first.set(e.entry.diamond_id, e);
  return [...first.values()].filter((e) => e.entry.prev_entry_hash === null && !(e.entry.links && e.entry.links.length > 0)).map((e) => e.entry.diamond_id);
}
