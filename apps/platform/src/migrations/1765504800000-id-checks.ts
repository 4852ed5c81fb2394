import { MigrationInterface, QueryRunner } from 'typeorm';

/** The two ids a CHECK constraint holds to the spec's form (lowercase letters and digits, 20 to 98 of them). */
const CHECKS = [
  { table: 'diamonds', column: 'diamond_id' },
  { table: 'shipments', column: 'shipment_id' },
];

/**
 * The id checks without a bounded repetition. `id ~ '^[a-z0-9]{20,98}$'` makes PostgreSQL's regular expression engine
 * expand the bound into about a hundred states and build its DFA anew for every row it checks: 13 to 14 µs per
 * row, against 1.5 µs for the same rule as `length(id) BETWEEN 20 AND 98 AND id ~ '^[a-z0-9]+$'`, which accepts
 * exactly the same strings. Every insert and every update of a diamond or a shipment checks it; a perf profile of
 * PostgreSQL under `npm run bench -- platform` put 6 % of its CPU in the regex engine's `miss`.
 *
 * Outside a transaction, so that the table is not locked while its rows are checked: each constraint is replaced
 * `NOT VALID` in one ALTER TABLE (a brief lock, no scan), then validated, which reads the table under a lock that lets
 * reads and writes go on. Rerunning after a failure between the two is safe.
 */
export class IdChecks1765504800000 implements MigrationInterface {
  name = 'IdChecks1765504800000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    for (const { table, column } of CHECKS) await replace(q, table, column, `length(${column}) BETWEEN 20 AND 98 AND ${column} ~ '^[a-z0-9]+$'`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const { table, column } of CHECKS) await replace(q, table, column, `${column} ~ '^[a-z0-9]{20,98}$'`);
  }
}

async function replace(q: QueryRunner, table: string, column: string, check: string): Promise<void> {
  const name = `${table}_${column}_check`;
  await q.query(`ALTER TABLE ${table} DROP CONSTRAINT ${name}, ADD CONSTRAINT ${name} CHECK (${check}) NOT VALID`);
  await q.query(`ALTER TABLE ${table} VALIDATE CONSTRAINT ${name}`);
}
