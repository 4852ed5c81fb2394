import type { Sql } from '@dtp/database';

/**
 * A transaction-scoped advisory lock per participant. Taken by a registration that found no onboarding data
 * for its caller and by the participants consumer, so the consumer's provenance fix-up never misses a diamond
 * that was being registered at the same moment.
 */
export async function lockParticipant(sql: Sql, participantId: string): Promise<void> {
  await sql.rows(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`participant:${participantId}`]);
}
