/**
 * `npm run search:rebuild`: drops search's read model and rebuilds it by replaying platform.diamonds.v1 from the
 * beginning (a fresh consumer group), with a progress bar and a final count.
 *
 *   KAFKA_BROKERS=127.0.0.1:9092 SEARCH_DATABASE_URL=postgres://.../dtp_search npm run search:rebuild
 *   ... npm run search:rebuild -- --expect-count 1234          # exit 1 unless the rebuilt count is 1234
 *   PLATFORM_DATABASE_URL=postgres://.../dtp_platform ...      # or: check against platform's own count
 *
 * Options: --topic NAME (default platform.diamonds.v1), --group NAME (default search-rebuild-<time>),
 * --expect-count N, --no-progress. The database is SEARCH_DATABASE_URL, else DATABASE_URL. Needs Kafka: the
 * in-process bus of `npm start` keeps no log to replay.
 */
import 'reflect-metadata';
import { SingleBar, Presets } from 'cli-progress';
import { Client } from 'pg';
import { createDataSource, runMigrations } from '@dtp/database';
import { KafkaTransport, parseConnectVia } from '@dtp/events';
import { createLogger } from '@dtp/service-kit';
import { rebuildReadModel, searchDbOptions } from '@dtp/search';

interface Args {
  expectCount?: number;
  topic?: string;
  group?: string;
  progress: boolean;
}

function usage(message: string): never {
  process.stderr.write(`search:rebuild: ${message}\nusage: npm run search:rebuild -- [--expect-count N] [--topic T] [--group G] [--no-progress]\n`);
  process.exit(2);
}

function parseArgs(argv: string[]): Args {
  const args: Args = { progress: process.stderr.isTTY === true };
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i];
    const value = () => argv[++i] ?? usage(`${a} needs a value`);
    if (a === '--expect-count') {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 0) usage('--expect-count must be a whole number');
      args.expectCount = n;
    } else if (a === '--topic') args.topic = value();
    else if (a === '--group') args.group = value();
    else if (a === '--no-progress') args.progress = false;
    else if (a === '--progress') args.progress = true;
    else usage(`unknown argument ${a}`);
  }
  return args;
}

async function platformCount(url: string): Promise<number> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM diamonds');
    return rows[0].n;
  } finally {
    await c.end();
  }
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const env = process.env;
  const dbUrl = env.SEARCH_DATABASE_URL ?? env.DATABASE_URL;
  if (!dbUrl) usage('set SEARCH_DATABASE_URL (or DATABASE_URL) to the search database');
  if (!env.KAFKA_BROKERS) usage('set KAFKA_BROKERS: the rebuild replays the Kafka topic (npm start keeps no event log)');
  const logger = createLogger('search-rebuild', env.LOG_LEVEL ?? 'warn');

  const options = searchDbOptions({ DATABASE_URL: dbUrl, DB_POOL_SIZE: 10 });
  await runMigrations(options, logger);
  const ds = createDataSource(options);
  await ds.initialize();
  const transport = new KafkaTransport({
    clientId: 'dtp-search-rebuild',
    brokers: env.KAFKA_BROKERS.split(',').map((b) => b.trim()).filter(Boolean),
    logger,
    maxWaitTimeInMs: 100,
    sessionTimeoutMs: env.KAFKA_SESSION_TIMEOUT_MS ? Number(env.KAFKA_SESSION_TIMEOUT_MS) : undefined,
    connectVia: parseConnectVia(env.KAFKA_CONNECT_VIA),
  });
  const bar = args.progress ? new SingleBar({ format: 'replaying {bar} {value}/{total} events | {percentage}% | {eta_formatted} left', hideCursor: true }, Presets.shades_classic) : undefined;
  const started = Date.now();
  try {
    let barStarted = false;
    const result = await rebuildReadModel({
      dataSource: ds,
      transport,
      logger,
      topic: args.topic,
      group: args.group,
      onProgress: (done, total) => {
        if (!bar) return;
        if (!barStarted) {
          bar.start(total, done);
          barStarted = true;
        } else bar.update(done);
      },
    });
    bar?.stop();
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    process.stdout.write(`rebuilt: ${result.count} diamonds from ${result.messages} events in ${secs} s${result.parked ? ` (${result.parked} parked: see parked_events)` : ''}\n`);

    const expected = args.expectCount ?? (env.PLATFORM_DATABASE_URL ? await platformCount(env.PLATFORM_DATABASE_URL) : undefined);
    if (expected !== undefined) {
      const source = args.expectCount !== undefined ? '--expect-count' : "platform's database";
      if (expected !== result.count) {
        process.stdout.write(`MISMATCH: ${result.count} diamonds in search, ${expected} expected (${source})\n`);
        return 1;
      }
      process.stdout.write(`count matches ${source}: ${expected}\n`);
    }
    return 0;
  } finally {
    bar?.stop();
    await transport.close();
    await ds.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`search:rebuild failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
