import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DiamondV1, EventEnvelope, makeEnvelope, newDiamondId } from '@dtp/domain';

/** A complete DiamondV1 as platform publishes it (rough, registered, locked). */
export function diamondRecord(overrides: Partial<DiamondV1> = {}): DiamondV1 {
  const now = new Date().toISOString();
  return {
    assurance_level: 'assured',
    current_stage: 'rough',
    diamond_id: newDiamondId(),
    id: randomUUID(),
    is_current: true,
    lifecycle_state: 'rough',
    participant_timestamp: now,
    polished: {},
    provenance: { provenance_name: 'Test mine', provenance_type: 'mine', is_locked: true, is_country_code_available: false },
    possession_state: 'held',
    producer_uuid: randomUUID(),
    rough: { carats: '1.25' },
    rough_check: false,
    polished_objective_verification_results: [],
    rough_objective_verification_results: [],
    system_timestamp: now,
    unlock_status: 'locked',
    version_id: randomUUID(),
    diamond_parent_id: null,
    participant_id: `erp-${randomUUID()}`,
    box_id: 'box-1',
    schema_version: '1',
    ...overrides,
  };
}

export function upserted(record: DiamondV1, revision: number): EventEnvelope {
  return makeEnvelope({ event_type: 'diamond.upserted', data: record, revision });
}

export function deleted(diamondId: string, revision: number): EventEnvelope {
  return makeEnvelope({ event_type: 'diamond.deleted', data: { diamond_id: diamondId }, revision });
}

/** Polls `probe` until it returns a value other than undefined. */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function withDb<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
