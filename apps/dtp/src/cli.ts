import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DtpApiError, DtpError } from '@dtp/sdk';
import { FILE_KINDS, SHIPMENT_TYPES, STATE_FILE_NAME } from './choices';
import type { gisValidate } from './commands/gis';
import type { LoginOptions } from './commands/login';
import { EXIT, UsageError } from './exit-codes';
import { CliIo } from './io';

// Each command's module loads when the command runs (`await import`), not when the program is built: `dtp --help`
// and every other command skip the DTOs of @dtp/domain (class-validator), @dtp/verify and the CSV libraries.
const commands = {
  delete: () => import('./commands/delete'),
  diamonds: () => import('./commands/diamonds'),
  events: () => import('./commands/events'),
  gis: () => import('./commands/gis'),
  login: () => import('./commands/login'),
  lookup: () => import('./commands/lookup'),
  roughImport: () => import('./commands/rough-import'),
  shipments: () => import('./commands/shipments'),
  verify: () => import('./commands/verify'),
};

/** The workspace's version: the nearest package.json above this file (the sources, or dist/ beside it). */
function workspaceVersion(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    try {
      return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      // not here: one level up
    }
  }
  return 'unknown';
}
const VERSION = workspaceVersion();

const EXIT_CODES_HELP = `
Exit codes:
  0  done
  1  API or runtime failure (the service refused or could not be reached; credentials refused);
     for dtp verify also: the custody log did not verify (the first broken link is named)
  2  usage or input error, found before any request was sent (bad arguments, no credentials
     configured, invalid CSV rows without --skip-invalid)
  3  partial failure of a bulk command (some rows or deletions failed; see the result file)

Configuration: dtp login stores profiles in $DTP_CONFIG_DIR/config.json (default ~/.config/dtp, mode 0600).
Environment variables override a profile: DTP_PROFILE, DTP_CLIENT_ID, DTP_CLIENT_SECRET, DTP_AUTH_URL,
DTP_PLATFORM_URL, DTP_SEARCH_URL, DTP_GIS_URL (and DTP_<SERVICE>_AUDIENCE when an audience is not the URL).
Docs: docs/sdk.md`;

const int = (name: string, min: number, max: number) => (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}`);
  }
  return Number(value);
};

const num = (value: string) => {
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(value.trim())) throw new InvalidArgumentError('not a number');
  return Number(value);
};

/** The `dtp` program: its commands write to `io` and report their exit code to `setCode`. */
export function buildProgram(io: CliIo, setCode: (code: number) => void = () => undefined): Command {
  const program = new Command('dtp');
  program
    .description('Command line for the Diamond Traceability Platform, on @dtp/sdk: bulk registration, shipments, deletion, grading.')
    .version(VERSION, '--version', 'print the version')
    .option('--profile <name>', 'profile of the config file to use (default: $DTP_PROFILE or "default")')
    .option('--cert <file>', "mutual TLS: a legacy participant's registered client certificate, PEM (else $DTP_CERT_FILE)")
    .option('--key <file>', 'mutual TLS: the key of --cert, PEM (else $DTP_KEY_FILE)')
    .option('--ca <file>', "mutual TLS: the CA of the services' server certificates, PEM, when not a public one (else $DTP_CA_FILE)")
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', EXIT_CODES_HELP);

  // --cert/--key/--ca reach every command's client as the profile's DTP_CERT_FILE/DTP_KEY_FILE/DTP_CA_FILE.
  program.hook('preAction', (_program, action) => {
    const tls = action.optsWithGlobals() as { cert?: string; key?: string; ca?: string };
    if (tls.cert) io.env.DTP_CERT_FILE = tls.cert;
    if (tls.key) io.env.DTP_KEY_FILE = tls.key;
    if (tls.ca) io.env.DTP_CA_FILE = tls.ca;
  });

  const run =
    <A extends unknown[]>(fn: (...args: A) => Promise<number> | number) =>
    async (...args: A) => {
      setCode(await fn(...args));
    };
  const globals = (cmd: Command) => cmd.optsWithGlobals() as { profile?: string; json?: boolean };
  const json = () => new Option('--json', 'print the answer as JSON (for scripts)');

  program
    .command('login')
    .description('store credentials and service URLs in a profile (the file is 0600); checks them with a token request')
    .option('--client-id <id>', 'client id from onboarding')
    .option('--client-secret-stdin', 'read the client secret from stdin (else DTP_CLIENT_SECRET, else a prompt on a terminal)')
    .option('--auth-url <url>', 'auth service address, e.g. https://auth.example.com')
    .option('--platform-url <url>', 'platform API address ({base_url})')
    .option('--search-url <url>', 'search API address (without /v1)')
    .option('--gis-url <url>', 'GIS address ({gis_url})')
    .option('--platform-audience <url>', 'token audience of the platform API, when it is not --platform-url')
    .option('--search-audience <url>', 'token audience of the search API, when it is not <search-url>/v1')
    .option('--gis-audience <url>', 'token audience of GIS, when it is not --gis-url')
    .option('--no-verify', 'store without asking auth for a token first')
    .addOption(json())
    .action(
      run(async (opts: Omit<LoginOptions, 'profile' | 'json'> & { json?: boolean }, cmd: Command) =>
        (await commands.login()).login(io, { ...opts, profile: globals(cmd).profile, json: Boolean(opts.json) }),
      ),
    );

  program
    .command('logout')
    .description('remove a profile (its credentials) from the config file')
    .action(run(async (_opts: unknown, cmd: Command) => (await commands.login()).logout(io, { profile: globals(cmd).profile })));

  const rough = program.command('rough').description('rough diamonds');
  rough
    .command('import')
    .description(
      'register rough diamonds from a CSV file, one row per diamond. Columns: the CreateRoughDiamond members ' +
        '(box_id, participant_id, participant_timestamp, assurance_level, box_description, sight_no, sight_year, ' +
        'entity_specific_tags and supplementary_tags as JSON) and rough.<member> (rough.carats, rough.colour, ...). ' +
        'Every row is validated first; nothing is sent while a row is invalid unless --skip-invalid. Each row carries an ' +
        'Idempotency-Key made of the file hash and its line, so running the same file again registers nothing twice.',
    )
    .argument('<file>', 'the CSV file (UTF-8, header line first)')
    .option('--concurrency <n>', 'requests in flight (1 to 64)', int('--concurrency', 1, 64), 8)
    .option('--skip-invalid', 'send the valid rows even when others are invalid (the invalid ones are listed in the result file)')
    .option('--dry-run', 'validate only; send nothing (needs no credentials)')
    .option('--out <file>', 'the result CSV: line, box_id, participant_id, diamond_id, error (default: <file>.result.csv)')
    .addOption(json())
    .action(
      run(async (file: string, opts: { concurrency: number; skipInvalid?: boolean; dryRun?: boolean; out?: string; json?: boolean }, cmd: Command) =>
        (await commands.roughImport()).roughImport(io, file, {
          ...opts,
          skipInvalid: Boolean(opts.skipInvalid),
          dryRun: Boolean(opts.dryRun),
          json: Boolean(opts.json),
          profile: globals(cmd).profile,
        }),
      ),
    );

  const diamonds = program.command('diamonds').description("diamond records, their history and files (the search API: a non-participant's credentials)");
  diamonds
    .command('get')
    .description('the diamond record')
    .argument('<diamond_id>')
    .addOption(json())
    .action(
      run(async (id: string, _o: unknown, cmd: Command) =>
        (await commands.diamonds()).diamondsGet(io, id, { json: Boolean(globals(cmd).json), profile: globals(cmd).profile }),
      ),
    );
  diamonds
    .command('history')
    .description("the diamond's ancestors, nearest first")
    .argument('<diamond_id>')
    .addOption(json())
    .action(
      run(async (id: string, _o: unknown, cmd: Command) =>
        (await commands.diamonds()).diamondsHistory(io, id, { json: Boolean(globals(cmd).json), profile: globals(cmd).profile }),
      ),
    );
  diamonds
    .command('files')
    .description('list the files attached to a diamond, or download one with --download <hash>')
    .argument('<diamond_id>')
    .option('--download <hash>', 'download the file with this sha256')
    .option('--output <path>', 'where --download writes (default: the file name, or the hash)')
    .addOption(json())
    .action(
      run(async (id: string, opts: { download?: string; output?: string }, cmd: Command) =>
        (await commands.diamonds()).diamondsFiles(io, id, { ...opts, json: Boolean(globals(cmd).json), profile: globals(cmd).profile }),
      ),
    );

  diamonds
    .command('attach')
    .description(
      "attach a file to a diamond you hold (the platform API: the holder's credentials), e.g. the scan report a grading lab needs " +
        'before dtp gis verify or validate: dtp diamonds attach <diamond_id> report.xml --kind scan_report',
    )
    .argument('<diamond_id>')
    .argument('<file>', 'the file to upload (its name is kept)')
    .addOption(new Option('--kind <kind>', 'what the file is').choices(FILE_KINDS).makeOptionMandatory())
    .option('--description <text>', 'free text stored with the file')
    .option('--image-type <text>', 'for images: the image type')
    .addOption(json())
    .action(
      run(async (id: string, file: string, opts: { kind: (typeof FILE_KINDS)[number]; description?: string; imageType?: string }, cmd: Command) =>
        (await commands.diamonds()).diamondsAttach(io, id, file, { ...opts, json: Boolean(globals(cmd).json), profile: globals(cmd).profile }),
      ),
    );

  const events = program.command('events').description("your events from platform's event feed (docs/webhooks.md)");
  events
    .command('listen')
    .description(
      'follow the event feed and POST each event, signed as a webhook (Standard Webhooks headers), to a local URL, in order; ' +
        'a receiver that is down is retried. Starts after the newest event unless --after or --from-start. Ctrl-C stops (exit 130)',
    )
    .requiredOption('--forward-to <url>', 'where to POST each event, e.g. http://localhost:4000/dtp/events')
    .option('--secret <whsec>', 'the signing secret (whsec_ + base64; else $DTP_WEBHOOK_SECRET, else one made now and printed)')
    .option('--after <cursor>', 'start after this feed cursor (printed when the command stops)')
    .option('--from-start', 'start at the oldest event kept (30 days)')
    .option('--types <list>', 'only these event types, comma separated')
    .option('--poll-interval <ms>', 'how often to ask for new events once caught up', int('--poll-interval', 50, 600_000), 1000)
    .option('--max-events <n>', 'stop after forwarding n events', int('--max-events', 1, 1_000_000_000))
    .action(
      run(
        async (
          opts: { forwardTo: string; secret?: string; after?: string; fromStart?: boolean; types?: string; pollInterval: number; maxEvents?: number },
          cmd: Command,
        ) => (await commands.events()).eventsListen(io, { ...opts, fromStart: Boolean(opts.fromStart), profile: globals(cmd).profile }),
      ),
    );

  program
    .command('lookup')
    .description(
      'find diamonds by what people who meet them hold: a grading report number (optionally with its lab), a girdle inscription or a ' +
        "certificate number, on their active grading; exact, any case, at most 20 (the search API: a non-participant's credentials)",
    )
    .option('--report-number <number>', "the grading report's number")
    .option('--lab <lab>', 'with --report-number: the grading lab (GIA, IGI, HRD, ...)')
    .option('--inscription <text>', 'a laser inscription on the girdle')
    .option('--certificate-number <number>', "the grading certificate's number")
    .addOption(json())
    .action(
      run(async (opts: { reportNumber?: string; lab?: string; inscription?: string; certificateNumber?: string }, cmd: Command) =>
        (await commands.lookup()).lookup(io, { ...opts, json: Boolean(globals(cmd).json), profile: globals(cmd).profile }),
      ),
    );

  program
    .command('ship')
    .description('ship diamonds you hold to another participant (a transfer out; at most 1,000 per shipment)')
    .argument('[diamond_id...]', 'the diamonds (or --from)')
    .requiredOption('--to <participant_id>', 'the recipient participant (a UUID)')
    .requiredOption('--name <name>', 'a name for the shipment')
    .addOption(new Option('--type <type>', 'shipment type').choices(SHIPMENT_TYPES).makeOptionMandatory())
    .option('--from <file>', 'a file of diamond ids: one per line, or a CSV with a diamond_id column')
    .addOption(json())
    .action(
      run(async (ids: string[], opts: { to: string; name: string; type: (typeof SHIPMENT_TYPES)[number]; from?: string }, cmd: Command) =>
        (await commands.shipments()).ship(io, ids, { ...opts, json: Boolean(globals(cmd).json), profile: globals(cmd).profile }),
      ),
    );

  program
    .command('inbound')
    .description('shipments sent to you, oldest first (the order the platform lists them in)')
    .addOption(new Option('--type <type>', 'only this shipment type').choices(SHIPMENT_TYPES))
    .option('--page <n>', 'page number', int('--page', 1, 1_000_000), 1)
    .option('--page-size <n>', 'shipments per page (1 to 100)', int('--page-size', 1, 100), 50)
    .option('--all', 'every page')
    .addOption(json())
    .action(
      run(async (opts: { type?: (typeof SHIPMENT_TYPES)[number]; page: number; pageSize: number; all?: boolean }, cmd: Command) =>
        (await commands.shipments()).inbound(io, { ...opts, all: Boolean(opts.all), json: Boolean(globals(cmd).json), profile: globals(cmd).profile }),
      ),
    );

  for (const decision of ['accept', 'reject'] as const) {
    program
      .command(decision)
      .description(
        decision === 'accept'
          ? 'accept diamonds of an inbound shipment (every pending one when none are named; a rough shipment is accepted whole)'
          : 'reject diamonds of an inbound shipment (every pending one when none are named); they go back to the sender',
      )
      .argument('<shipment_id>')
      .argument('[diamond_id...]', 'the diamonds (default: every pending one)')
      .option('--from <file>', 'a file of diamond ids')
      .addOption(json())
      .action(
        run(async (shipmentId: string, ids: string[], opts: { from?: string }, cmd: Command) =>
          (await commands.shipments()).decide(io, decision, shipmentId, ids, { ...opts, json: Boolean(globals(cmd).json), profile: globals(cmd).profile }),
        ),
      );
  }

  program
    .command('delete')
    .description('delete diamonds you uploaded (permanent), 1,000 per request; exit 3 when some could not be deleted')
    .argument('[diamond_id...]', 'the diamonds (or --from)')
    .option('--from <file>', 'a file of diamond ids: one per line, or a CSV with a diamond_id column (e.g. an import result)')
    .option('--descendants', 'also delete their descendants (delete_descendants)')
    .option('--out <file>', 'write the results as CSV (diamond_id, status, reason, descendants)')
    .addOption(json())
    .action(
      run(async (ids: string[], opts: { from?: string; descendants?: boolean; out?: string }, cmd: Command) =>
        (await commands.delete()).deleteDiamonds(io, ids, {
          ...opts,
          descendants: Boolean(opts.descendants),
          json: Boolean(globals(cmd).json),
          profile: globals(cmd).profile,
        }),
      ),
    );

  const gis = program.command('gis').description("grading labs: verify and validate polished diamonds (a grading lab's credentials)");
  gis
    .command('verify')
    .description(
      'does the stone in hand match the registered diamond (carats within 0.02, same shape group)? The diamond needs a scan report first ' +
        '(409 diamond_has_no_scan_report until then): its holder attaches one with `dtp diamonds attach <diamond_id> <report.xml> --kind scan_report`',
    )
    .argument('<diamond_id>')
    .requiredOption('--carat-weight <n>', 'measured carats', num)
    .requiredOption('--shape-group <shape>', 'a shape or shape group (Round, Oval, ...)')
    .addOption(json())
    .action(
      run(async (id: string, opts: { caratWeight: number; shapeGroup: string }, cmd: Command) =>
        (await commands.gis()).gisVerify(io, id, { ...opts, json: Boolean(globals(cmd).json), profile: globals(cmd).profile }),
      ),
    );
  gis
    .command('validate')
    .description(
      "compare the lab's measurements with the diamond's scan report; --wait for the answer. The diamond needs a scan report first " +
        '(409 diamond_has_no_scan_report until then): its holder attaches one with `dtp diamonds attach <diamond_id> <report.xml> --kind scan_report`',
    )
    .argument('<diamond_id>')
    .requiredOption('--shape-group <shape>', 'a shape or shape group')
    .requiredOption('--estimated-weight-crt <n>', 'carats', num)
    .requiredOption('--girdle-avg-mm <n>', 'mm', num)
    .requiredOption('--table-avg-mm <n>', 'mm', num)
    .requiredOption('--total-depth-mm <n>', 'mm', num)
    .option('--crown-angle-deg <n>', 'degrees (optional)', num)
    .option('--pavillion-angle-deg <n>', 'degrees (optional; the spec spells it so)', num)
    .option('--wait', 'poll until the answer is Verified or Unverifiable')
    .option('--timeout <seconds>', 'how long --wait waits at most', int('--timeout', 1, 86_400), 120)
    .option('--interval <seconds>', 'seconds between polls', int('--interval', 1, 3_600), 1)
    .addOption(json())
    .action(
      run(async (id: string, opts: Omit<Parameters<typeof gisValidate>[2], 'json' | 'profile' | 'wait'> & { wait?: boolean }, cmd: Command) =>
        (await commands.gis()).gisValidate(io, id, { ...opts, wait: Boolean(opts.wait), json: Boolean(globals(cmd).json), profile: globals(cmd).profile }),
      ),
    );

  program
    .command('verify')
    .description(
      "check a diamond's custody log with the published keys alone: the signed checkpoint, every entry hash, link and " +
        'inclusion proof back to the mine, the current record against the latest entry, and that the log only grew since ' +
        "the last run (a rolled-back log fails). Reads search (a non-participant's credentials) and the platform's " +
        '/.well-known/custody-keys.json. Exit 0 with a summary, 1 naming the first broken link. ' +
        'With --credential FILE instead of a diamond id: checks an origin credential (a VC 2.0 JWT from /v1/diamonds/{id}/credential) ' +
        'against the custody keys: its signature, its checkpoint, its custody entry and inclusion proof, its record and every claim; ' +
        'offline with --keys FILE.',
    )
    .argument('[diamond_id]')
    .option('--credential <file>', 'an origin credential (the JWT text) to check instead of a diamond')
    .option('--state <file>', `the last verified checkpoint of each log, checked against and updated by every run (default: <config dir>/${STATE_FILE_NAME})`)
    .option('--keys <url-or-file>', 'the custody keys (JWKS) to trust, instead of {platform_url}/.well-known/custody-keys.json')
    .option(
      '--wait <seconds>',
      'keep asking this long while the log has not caught up (no entries of the diamond yet, or its record newer than the latest checkpoint: a change made seconds ago)',
      int('--wait', 0, 600),
      0,
    )
    .addOption(json())
    .action(
      run(async (id: string | undefined, opts: { state?: string; keys?: string; wait: number; credential?: string }, cmd: Command) => {
        const verify = await commands.verify();
        const common = { json: Boolean(globals(cmd).json), profile: globals(cmd).profile };
        if (opts.credential !== undefined) {
          if (id !== undefined) throw new UsageError('give either a diamond id or --credential FILE, not both');
          return verify.verifyCredentialFile(io, opts.credential, { ...opts, ...common });
        }
        if (id === undefined) throw new UsageError('missing the diamond id (or --credential FILE)');
        return verify.verifyDiamond(io, id, { ...opts, ...common });
      }),
    );

  return program;
}

/** Runs `dtp` with `argv` (the arguments after the program name); answers the exit code. Never exits itself. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let code: number = EXIT.ok;
  const program = buildProgram(io, (c) => (code = c));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (err instanceof UsageError) {
      io.err(`error: ${err.message}\n`);
      return EXIT.usage;
    }
    if (err instanceof DtpApiError) {
      io.err(`error: ${err.message}${err.requestId ? ` (request id ${err.requestId})` : ''}\n`);
      return EXIT.failure;
    }
    io.err(`error: ${err instanceof DtpError || err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.failure;
  }
}
