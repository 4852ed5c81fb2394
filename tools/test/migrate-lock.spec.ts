import { Client } from 'pg';
import { createTestDatabase, sqlRows } from '@dtp/testing';
import { migrate, migrationLockKey, pendingMigrations } from '../migrate';
import { searchMigrations } from '../../apps/search/src/migrations';

/**
 * Migrations run in every new pod's init container (k8s/base/<app>/deployment.yaml): pods that start together run
 * `migrate <service>` at the same time against one database. The per-service advisory lock makes them take turns.
 */
describe('migrate: one run at a time per service (advisory lock)', () => {
  const env = (url: string) => ({
    DATABASE_URL: url,
    LOG_LEVEL: 'silent',
    PORT: '3003',
    AUTH_ISSUER: 'http://auth.test',
    SEARCH_AUDIENCE: 'http://search.test/v1',
    KAFKA_BROKERS: '127.0.0.1:9092',
  });
  const args = { services: ['search' as const], createDatabase: false, wait: false, timeoutSeconds: 5 };

  it('two concurrent runs against one database both succeed and apply each migration once', async () => {
    const url = await createTestDatabase('migratelock');
    const runs = await Promise.allSettled([migrate(args, env(url)), migrate(args, env(url)), migrate(args, env(url))]);
    expect(runs.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    const rows = await sqlRows<{ name: string }>(url, 'SELECT name FROM schema_migrations ORDER BY id');
    expect(rows.length).toBe(searchMigrations.length);
    expect(new Set(rows.map((r) => r.name)).size).toBe(rows.length);
    expect(await pendingMigrations(url, searchMigrations)).toEqual([]);
    // The lock is released: nobody holds an advisory lock in this database any more.
    expect(
      await sqlRows(url, "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"),
    ).toEqual([]);
  });

  it('waits while another session holds the lock, and applies once it is released', async () => {
    const url = await createTestDatabase('migratelockheld');
    const holder = new Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock(hashtext($1))', [migrationLockKey('search')]);
      let finished = false;
      const run = migrate(args, env(url)).then(() => {
        finished = true;
      });
      // Held: the run has connected and waits in pg_advisory_lock; nothing is applied meanwhile.
      for (let i = 0; i < 100; i++) {
        const waiting = await sqlRows(url, "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
        if (waiting.length > 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await sqlRows(url, "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).toHaveLength(1);
      expect(finished).toBe(false);
      expect(await pendingMigrations(url, searchMigrations)).toHaveLength(searchMigrations.length);
      await holder.query('SELECT pg_advisory_unlock(hashtext($1))', [migrationLockKey('search')]);
      await run;
      expect(await pendingMigrations(url, searchMigrations)).toEqual([]);
    } finally {
      await holder.end();
    }
  });

  it('locks per service: a lock held for another service does not block this one', async () => {
    const url = await createTestDatabase('migratelockother');
    const holder = new Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock(hashtext($1))', [migrationLockKey('platform')]);
      await migrate(args, env(url));
      expect(await pendingMigrations(url, searchMigrations)).toEqual([]);
    } finally {
      await holder.end();
    }
  });
});
