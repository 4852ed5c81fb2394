/**
 * `npm run search:rebuild`: drops search's read model and rebuilds it by replaying platform.diamonds.v1 from the
 * beginning (a fresh consumer group), with a progress bar and a final count.
 *
 *   KAFKA_BROKERS=127.0.0.1:9092 SEARCH_DATABASE_URL=postgres://.../dtp_search npm run search:rebuild
 *   ... npm run search:rebuild -- --expect-count 1234          # exit 1 unless the rebuilt count is 1234
 *   PLATFORM_DATABASE_URL=postgres://.../dtp_platform ...      # or: check against platform's own count
 *
 * Options (`-- --help` lists them): --topic NAME (default platform.diamonds.v1), --group NAME (default
 * search-rebuild-<time>), --expect-count N, --broker-wait SECONDS (default 120: how long a broker that does not
 * answer yet is asked again), --no-progress. The database is SEARCH_DATABASE_URL, else DATABASE_URL.
 * Kafka is read with the services' own variables (kafkaOptionsFromEnv: KAFKA_TOPIC_PREFIX and KAFKA_GROUP_PREFIX
 * too, so a prefixed deployment replays its own topic). Needs Kafka: the in-process bus of `npm start` keeps no
 * log to replay. Exit codes: 0 done, 1 failure or count mismatch, 2 usage (before any connection).
 */
import 'reflect-metadata';
import { SingleBar, Presets } from 'cli-progress';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { Client } from 'pg';
import { createDataSource, runMigrations } from '@dtp/database';
import { KafkaTransport, kafkaOptionsFromEnv } from '@dtp/events';
import { createLogger } from '@dtp/service-kit';
import { rebuildReadModel, searchDbOptions } from '@dtp/search';

interface Args {
  expectCount?: number;
  topic?: string;
  group?: string;
  progress: boolean;
  /** How long to keep trying to reach Kafka before giving up (ms). */
  brokerWaitMs: number;
}

/** --broker-wait's default: a broker restarting, or a loaded machine, answers within that. */
export const DEFAULT_BROKER_WAIT_S = 120;

/** The command line (commander): `--help` prints it and exits 0; a usage error exits 2 before any connection. */
export function rebuildCommand(): Command {
  return new Command('search:rebuild')
    .description(
      "Drops search's read model and rebuilds it by replaying platform.diamonds.v1 from the beginning (a fresh consumer group).\n" +
        'Reads SEARCH_DATABASE_URL (else DATABASE_URL), KAFKA_BROKERS and the other KAFKA_* variables of the services,\n' +
        'KAFKA_TOPIC_PREFIX and KAFKA_GROUP_PREFIX included; PLATFORM_DATABASE_URL to check the count against platform.\n' +
        'Exit codes: 0 rebuilt (and the count matches), 1 failure or count mismatch, 2 usage.',
    )
    .option('--expect-count <n>', 'exit 1 unless the rebuilt count is n', (v) => {
      const n = Number(v);
      if (!/^\d+$/.test(v) || !Number.isSafeInteger(n)) throw new InvalidArgumentError('a whole number');
      return n;
    })
    .option('--topic <name>', 'the topic to replay (default platform.diamonds.v1; KAFKA_TOPIC_PREFIX is prepended on the wire)')
    .option('--group <name>', 'the consumer group (default search-rebuild-<time>; KAFKA_GROUP_PREFIX is prepended)')
    .option('--broker-wait <seconds>', `keep trying to reach Kafka this long before giving up (default ${DEFAULT_BROKER_WAIT_S})`, (v) => {
      const n = Number(v);
      if (!/^\d+$/.test(v) || n < 1 || n > 3600) throw new InvalidArgumentError('a whole number of seconds from 1 to 3600');
      return n;
    })
    .option('--progress', 'a progress bar (default: when stderr is a terminal)')
    .option('--no-progress', 'no progress bar');
}

/**
 * Reaches the broker before the rebuild starts: a broker that is restarting, or a machine so loaded that a request
 * times out, is asked again (every 1 s doubling to 10 s, a line on stderr each time) until `budgetMs` has passed,
 * as a user would retry. Throws the last error after that.
 */
export async function waitForBroker(transport: Pick<KafkaTransport, 'check'>, budgetMs: number, say: (line: string) => void): Promise<void> {
  const until = Date.now() + budgetMs;
  for (let attempt = 1, wait = 1000; ; attempt += 1, wait = Math.min(wait * 2, 10_000)) {
    try {
      await transport.check();
      return;
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      const giveUp = Date.now() + wait > until;
      say(`search:rebuild: Kafka did not answer (attempt ${attempt}: ${why})${giveUp ? '' : `; trying again in ${wait / 1000} s`}`);
      if (giveUp) throw new Error(`Kafka did not answer within ${Math.round(budgetMs / 1000)} s (--broker-wait): ${why}`);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

function usage(message: string): never {
  process.stderr.write(`search:rebuild: ${message}\n${rebuildCommand().helpInformation()}`);
  process.exit(2);
}

/** Parsed arguments, or the exit code of --help / a usage error (printed). */
export function parseArgs(
  argv: string[],
  io = { out: (s: string) => process.stdout.write(s), err: (s: string) => process.stderr.write(s) },
): Args | { exit: number } {
  const command = rebuildCommand().exitOverride().configureOutput({ writeOut: io.out, writeErr: io.err });
  try {
    command.parse(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return { exit: err.exitCode === 0 ? 0 : 2 };
    throw err;
  }
  const o = command.opts<{ expectCount?: number; topic?: string; group?: string; progress?: boolean; brokerWait?: number }>();
  return {
    expectCount: o.expectCount,
    topic: o.topic,
    group: o.group,
    progress: o.progress ?? process.stderr.isTTY === true,
    brokerWaitMs: (o.brokerWait ?? DEFAULT_BROKER_WAIT_S) * 1000,
  };
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
  if ('exit' in args) return args.exit;
  const env = process.env;
  const dbUrl = env.SEARCH_DATABASE_URL ?? env.DATABASE_URL;
  if (!dbUrl) usage('set SEARCH_DATABASE_URL (or DATABASE_URL) to the search database');
  if (!env.KAFKA_BROKERS) usage('set KAFKA_BROKERS: the rebuild replays the Kafka topic (npm start keeps no event log)');
  const logger = createLogger('search-rebuild', env.LOG_LEVEL ?? 'warn');

  const options = searchDbOptions({ DATABASE_URL: dbUrl, DB_POOL_SIZE: 10 });
  await runMigrations(options, logger);
  const ds = createDataSource(options);
  await ds.initialize();
  // The services' own Kafka settings: the prefixes, TLS/SASL, the connection forwards.
  const kafka = kafkaOptionsFromEnv('dtp-search-rebuild', logger, env);
  const transport = new KafkaTransport({ ...kafka, maxWaitTimeInMs: kafka.maxWaitTimeInMs ?? 100 });
  if (kafka.topicPrefix || kafka.groupPrefix) {
    process.stderr.write(`search:rebuild: KAFKA_TOPIC_PREFIX "${kafka.topicPrefix ?? ''}", KAFKA_GROUP_PREFIX "${kafka.groupPrefix ?? ''}"\n`);
  }
  const bar = args.progress
    ? new SingleBar({ format: 'replaying {bar} {value}/{total} events | {percentage}% | {eta_formatted} left', hideCursor: true }, Presets.shades_classic)
    : undefined;
  const started = Date.now();
  try {
    await waitForBroker(transport, args.brokerWaitMs, (line) => process.stderr.write(`${line}\n`));
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
    process.stdout.write(
      `rebuilt: ${result.count} diamonds from ${result.messages} events in ${secs} s${result.parked ? ` (${result.parked} parked: see parked_events)` : ''}\n`,
    );

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

if (require.main === module)
  main().then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`search:rebuild failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
