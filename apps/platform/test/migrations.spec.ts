import type { DataSource, MigrationInterface } from 'typeorm';
import { createDataSource, runMigrations } from '@dtp/database';
import { createTestDatabase } from '@dtp/testing';
import { DIAMOND_COLUMNS, DiamondRow } from '../src/diamonds/diamond.entity';
import { diamondRows, diamondRowValues } from '../src/diamonds/diamonds.repository';
import { platformEntities } from '../src/entities';
import { platformMigrations } from '../src/migrations';
import { IdChecks1765504800000 } from '../src/migrations/1765504800000-id-checks';
import { UnusedDiamondIndexes1765591200000 } from '../src/migrations/1765591200000-unused-diamond-indexes';
import { sampleRow } from './diamond.fixture';

/** Undoes the migrations applied after `migration`, then `migration` itself (the newest first). */
async function undoThrough(ds: DataSource, migration: new () => MigrationInterface): Promise<void> {
  const at = platformMigrations.indexOf(migration as (typeof platformMigrations)[number]);
  if (at < 0) throw new Error(`${migration.name} is not a platform migration`);
  for (let i = platformMigrations.length - 1; i >= at; i--) await ds.undoLastMigration({ transaction: 'each' });
}

/** A new database with every platform migration applied, and a data source on it for `run` (destroyed after). */
async function withMigratedDatabase(name: string, run: (ds: DataSource) => Promise<void>): Promise<void> {
  const opts = { url: await createTestDatabase(name), service: 'platform', entities: platformEntities, migrations: platformMigrations };
  await runMigrations(opts);
  const ds = createDataSource(opts);
  await ds.initialize();
  try {
    await run(ds);
  } finally {
    await ds.destroy();
  }
}

/** Inserts one diamond row as the registration's statement writes it. */
const insertDiamond = (ds: DataSource, row: DiamondRow) =>
  ds.query(`INSERT INTO diamonds (${DIAMOND_COLUMNS.join(', ')}) VALUES ${diamondRows(1)}`, diamondRowValues(row));

describe('platform migrations', () => {
  it('apply on an empty database, undo completely with their down, and apply again', async () => {
    const url = await createTestDatabase('platform_migrations');
    const opts = { url, service: 'platform', entities: platformEntities, migrations: platformMigrations };
    expect(await runMigrations(opts)).toHaveLength(platformMigrations.length);
    const ds = createDataSource(opts);
    await ds.initialize();
    try {
      const tables = async () =>
        (await ds.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations' ORDER BY 1`)).map(
          (r: { tablename: string }) => r.tablename,
        );
      expect(await tables()).toEqual([
        'consumer_state',
        'custody_checkpoints',
        'custody_entries',
        'custody_signing_keys',
        'diamond_shares',
        'diamonds',
        'graded_measurements',
        'idempotency_keys',
        'outbox',
        'parked_events',
        'participant_events',
        'participant_storage',
        'participants',
        'shipment_diamonds',
        'shipments',
        'webhook_deliveries',
        'webhooks',
      ]);
      const triggers = await ds.query(`SELECT tgname FROM pg_trigger WHERE NOT tgisinternal`);
      expect(triggers).toEqual([]);
      const functions = async () =>
        (await ds.query(`SELECT proname FROM pg_proc WHERE pronamespace = 'public'::regnamespace ORDER BY 1`)).map((r: { proname: string }) => r.proname);
      expect(await functions()).toEqual(['dtp_uuid_v7', 'outbox_notify']);
      for (let i = 0; i < platformMigrations.length; i++) await ds.undoLastMigration({ transaction: 'each' });
      expect(await tables()).toEqual([]);
      expect(await functions()).toEqual([]);
    } finally {
      await ds.destroy();
    }
    expect(await runMigrations(opts)).toHaveLength(platformMigrations.length);
  });

  it('hold diamond and shipment ids to the spec form with a check that has no bounded repetition, validated', async () => {
    await withMigratedDatabase('platform_id_checks', async (ds) => {
      const checks = async () =>
        (await ds.query(
          `SELECT conrelid::regclass::text AS tbl, pg_get_constraintdef(oid) AS def, convalidated AS valid FROM pg_constraint
            WHERE contype = 'c' AND conrelid IN ('diamonds'::regclass, 'shipments'::regclass) AND pg_get_constraintdef(oid) LIKE '%_id ~%' ORDER BY 1`,
        )) as { tbl: string; def: string; valid: boolean }[];
      // (the text as PostgreSQL prints it back: its parentheses differ between versions)
      const lengthAndClass = (column: string) =>
        expect.stringMatching(
          new RegExp(`^CHECK \\(+length\\(${column}\\) >= 20\\) AND \\(length\\(${column}\\) <= 98\\)+ AND \\(${column} ~ '\\^\\[a-z0-9\\]\\+\\$'::text\\)+$`),
        );
      expect(await checks()).toEqual([
        { tbl: 'diamonds', def: lengthAndClass('diamond_id'), valid: true },
        { tbl: 'shipments', def: lengthAndClass('shipment_id'), valid: true },
      ]);
      // what the database accepts: 20 to 98 lowercase letters and digits, nothing else
      const insert = async (diamondId: string, i: number) => {
        const row = sampleRow({ diamond_id: diamondId, legacy_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, participant_id: `ERP-${i}` });
        return insertDiamond(ds, row).then(
          () => 'stored',
          (err: { code?: string; constraint?: string }) => `${err.code} ${err.constraint}`,
        );
      };
      const cases: [string, string][] = [
        ['a'.repeat(20), 'stored'],
        ['0123456789abcdefghijklmnopqrstuvwxyz'.repeat(3).slice(0, 98), 'stored'],
        ['01hv5x4k2m8q9r7s6t5u4v3w2x', 'stored'],
        ['a'.repeat(19), '23514 diamonds_diamond_id_check'],
        ['a'.repeat(99), '23514 diamonds_diamond_id_check'],
        ['A'.repeat(26), '23514 diamonds_diamond_id_check'],
        ['01hv5x4k2m8q9r7s6t5u4v3w2-', '23514 diamonds_diamond_id_check'],
        ['01hv5x4k2m8q9r7s6t5u4v3w2\u00e9', '23514 diamonds_diamond_id_check'],
        ['01hv5x4k2m8q9r7s6t5u4v3w2x\n', '23514 diamonds_diamond_id_check'],
        ['', '23514 diamonds_diamond_id_check'],
      ];
      const got: [string, string][] = [];
      for (const [i, [id]] of cases.entries()) got.push([id, await insert(id, i)]);
      expect(got).toEqual(cases);
      // the down puts the regular expression of the first migration back, validated
      await undoThrough(ds, IdChecks1765504800000);
      const bounded = (column: string) => expect.stringMatching(new RegExp(`^CHECK \\(+${column} ~ '\\^\\[a-z0-9\\]\\{20,98\\}\\$'::text\\)+$`));
      expect(await checks()).toEqual([
        { tbl: 'diamonds', def: bounded('diamond_id'), valid: true },
        { tbl: 'shipments', def: bounded('shipment_id'), valid: true },
      ]);
    });
  });

  it('index diamonds only where a statement reads them: no index by holder or by uploader alone, the down puts both back', async () => {
    await withMigratedDatabase('platform_diamond_indexes', async (ds) => {
      const indexes = async () =>
        (await ds.query(
          `SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE i.indrelid = 'diamonds'::regclass ORDER BY 1`,
        )) as { name: string; valid: boolean }[];
      const kept = ['diamonds_box_participant_id', 'diamonds_legacy_id_key', 'diamonds_parent', 'diamonds_pkey', 'diamonds_provenance_pending'];
      expect(await indexes()).toEqual(kept.map((name) => ({ name, valid: true })));
      // the one statement by uploader still reads its partial index, not the table: 5,000 diamonds, 10 waiting
      const row = sampleRow({ diamond_id: 'a'.repeat(26), participant_id: 'ERP-0', provenance_pending: false });
      await insertDiamond(ds, row);
      await ds.query(
        `INSERT INTO diamonds SELECT (jsonb_populate_record(d, jsonb_build_object('diamond_id', 'b' || lpad(g::text, 25, '0'),
           'legacy_id', gen_random_uuid(), 'participant_id', 'ERP-' || g, 'provenance_pending', g <= 10))).*
           FROM diamonds d, generate_series(1, 4999) g`,
      );
      await ds.query(`ANALYZE diamonds`);
      const [{ 'QUERY PLAN': plan }] = (await ds.query(
        `EXPLAIN (FORMAT JSON) SELECT * FROM diamonds WHERE uploader_id = 'p' AND provenance_pending ORDER BY diamond_id FOR UPDATE`,
      )) as { 'QUERY PLAN': unknown }[];
      expect(JSON.stringify(plan)).toContain('"Index Name":"diamonds_provenance_pending"');
      await undoThrough(ds, UnusedDiamondIndexes1765591200000);
      expect(await indexes()).toEqual([...kept, 'diamonds_holder', 'diamonds_uploader'].sort().map((name) => ({ name, valid: true })));
    });
  });
});
