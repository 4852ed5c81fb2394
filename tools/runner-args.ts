import { Command, CommanderError } from 'commander';

/**
 * The command line of `npm start` and `npm run start:kafka` (commander, like the other tools): they take no
 * arguments, only the environment, so `--help` prints what they read and exits 0, and anything else is a usage
 * error (exit 2) before anything starts. Returns the exit code, or null to go on.
 */
export function runnerArguments(
  name: string,
  description: string,
  argv: string[],
  io: { out(s: string): void; err(s: string): void } = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) },
  /** Boolean flags the runner takes (`--tls`), each with its help line; what was given lands in `given`. */
  flags: ReadonlyArray<{ flag: string; description: string }> = [],
  given: Record<string, boolean> = {},
): number | null {
  const command = new Command(name)
    .description(description)
    .helpOption('-h, --help', 'print this help')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });
  for (const f of flags) command.option(f.flag, f.description);
  try {
    command.parse(argv, { from: 'user' });
    Object.assign(given, command.opts());
    return null;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode !== 0) io.err(command.helpInformation());
      return err.exitCode === 0 ? 0 : 2;
    }
    throw err;
  }
}

export const START_HELP =
  'The whole stack in one process: embedded PostgreSQL (or DATABASE_URL), auth, platform, search and gis, in-process events. ' +
  'Environment: DATABASE_URL (a server; else embedded PostgreSQL on DTP_PG_PORT, default 54329), <SERVICE>_DATABASE_URL, ' +
  'AUTH_PORT PLATFORM_PORT SEARCH_PORT GIS_PORT (default 3001-3004), AUTH_PUBLIC_URL PLATFORM_PUBLIC_URL SEARCH_PUBLIC_URL ' +
  'GIS_PUBLIC_URL (default http://localhost:<port>; the issuer, audiences and links follow them), DTP_DATA_DIR (default .data/), ' +
  'AUTH_ADMIN_TOKEN (default dev-admin-token), LOG_LEVEL, LOG_FORMAT. Ctrl-C stops everything cleanly.';

/** `npm start -- --tls` (DESIGN.md "Legacy integrations: mutual TLS"). */
export const START_FLAGS = [
  {
    flag: '--tls',
    description:
      'also serve HTTPS with client certificates requested (mutual TLS) on 3441-3444 (AUTH_TLS_PORT ... GIS_TLS_PORT), with a development CA ' +
      'and a server certificate for localhost made under <DTP_DATA_DIR>/tls/ (kept between runs); `npm run auth:cli -- issue-dev-certificate` ' +
      'then issues a client certificate for a legacy participant',
  },
] as const;

export const START_KAFKA_HELP =
  'The four services as separate processes over Kafka: KAFKA_BROKERS (else a local Kafka wire-protocol peer, the kcat ' +
  'mock cluster), DATABASE_URL (else the embedded PostgreSQL of npm start), the same ports, public URLs and DTP_DATA_DIR as npm start. ' +
  'A service that dies is restarted with back-off. Ctrl-C stops them all.';
