import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { Command, CommanderError } from 'commander';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { canonicalUuid, DomainError, isUuid, OnboardParticipantDto } from '@dtp/domain';
import { ConfigError, ensureDevCa, issueDevCertificate, loadConfig, toValidationDetails } from '@dtp/service-kit';
import { ClientCertificatesService } from '../certificates/client-certificates.service';
import { AuthConfig } from '../config';
import { SigningKeys } from '../keys/signing-keys';
import { ParticipantsService } from '../participants/participants.service';
import { AuthCliModule } from './cli.module';

export const USAGE = `usage: npm run auth:cli -- <command> [options]   (prints JSON; reads DATABASE_URL and the auth service's env)

  onboard --name <name> --role <producer|manufacturer|retailer|grading_lab|non_participant>
          [--provenance-name <name> --provenance-type <type> [--country-code <XX>]]
          [--integration-started-at <date or date-time with a zone>]   (before 2023-06-30: a legacy integration, mutual TLS allowed)
  add-credential --participant <participant_id>
  revoke-client --client-id <client_id>
  show --participant <participant_id>
  rotate-keys
  register-certificate --participant <participant_id> --certificate-file <PEM file>
  list-certificates --participant <participant_id>
  remove-certificate --participant <participant_id> --certificate <certificate_id>
  issue-dev-certificate --participant <participant_id> [--out <dir>] [--ca-dir <dir>]
          development only: a client key and certificate signed by the development CA of \`npm start -- --tls\`
          (--ca-dir, default <DTP_DATA_DIR or .data>/tls), written to --out (default .data/tls/clients), and registered
`;

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** DATABASE_URL of `npm start`'s auth database, used when the variable is not set. */
export const DEV_DATABASE_URL = (env: Record<string, string | undefined>) => `postgres://postgres:postgres@127.0.0.1:${env.DTP_PG_PORT ?? '54329'}/dtp_auth`;

type Options = Record<string, string | undefined>;

/** A command whose arguments are checked: what it runs against the service's modules, printed as JSON. */
type Run = (app: INestApplicationContext) => Promise<unknown>;

/**
 * Checks the command line without touching the database: a known command, its required options, the onboarding
 * input, participant ids as UUIDs. A usage error (exit 2) is reported here, never after connecting.
 */
async function prepare(command: string, options: Options, io: CliIo, env: Record<string, string | undefined>): Promise<Run | number> {
  const need = (name: string): string | undefined => {
    const value = options[name];
    if (!value) io.err(`${command}: --${name} is required\n\n${USAGE}`);
    return value;
  };
  const participantId = (): string | number => {
    const id = need('participant');
    if (!id) return 2;
    if (isUuid(id)) return canonicalUuid(id);
    io.err(JSON.stringify({ message: 'participant id must be a UUID' }));
    return 2;
  };
  switch (command) {
    case 'onboard': {
      const provenance =
        options['provenance-name'] || options['provenance-type'] || options['country-code']
          ? { name: options['provenance-name'], type: options['provenance-type'], country_code: options['country-code'] }
          : undefined;
      const dto = plainToInstance(OnboardParticipantDto, {
        name: options.name,
        role: options.role,
        provenance,
        ...(options['integration-started-at'] !== undefined ? { integration_started_at: options['integration-started-at'] } : {}),
      });
      const errors = await validate(dto, { whitelist: true, forbidNonWhitelisted: true });
      if (errors.length > 0) {
        io.err(JSON.stringify({ error: 'invalid input', detail: toValidationDetails(errors, 'options') }, null, 2));
        return 2;
      }
      return (app) => app.get(ParticipantsService).onboard(dto);
    }
    case 'add-credential': {
      const id = participantId();
      return typeof id === 'number' ? id : (app) => app.get(ParticipantsService).addCredential(id);
    }
    case 'revoke-client': {
      const clientId = need('client-id');
      if (!clientId) return 2;
      return async (app) => {
        await app.get(ParticipantsService).revokeClient(clientId);
        return { client_id: clientId, revoked: true };
      };
    }
    case 'show': {
      const id = participantId();
      return typeof id === 'number' ? id : (app) => app.get(ParticipantsService).get(id);
    }
    case 'register-certificate': {
      const id = participantId();
      if (typeof id === 'number') return id;
      const file = need('certificate-file');
      if (!file) return 2;
      let pem: string;
      try {
        pem = readFileSync(file, 'utf8');
      } catch (err) {
        io.err(JSON.stringify({ message: `cannot read --certificate-file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` }));
        return 2;
      }
      return (app) => app.get(ClientCertificatesService).register(id, pem);
    }
    case 'list-certificates': {
      const id = participantId();
      return typeof id === 'number' ? id : async (app) => ({ certificates: await app.get(ClientCertificatesService).list(id) });
    }
    case 'remove-certificate': {
      const id = participantId();
      if (typeof id === 'number') return id;
      const certificateId = need('certificate');
      if (!certificateId) return 2;
      if (!isUuid(certificateId)) {
        io.err(JSON.stringify({ message: 'certificate id must be a UUID' }));
        return 2;
      }
      const certificate = canonicalUuid(certificateId);
      return async (app) => {
        await app.get(ClientCertificatesService).remove(id, certificate);
        return { participant_id: id, certificate_id: certificate, removed: true };
      };
    }
    case 'issue-dev-certificate': {
      const id = participantId();
      if (typeof id === 'number') return id;
      const caDir = path.resolve(options['ca-dir'] ?? path.join(env.DTP_DATA_DIR ?? '.data', 'tls'));
      const outDir = path.resolve(options.out ?? path.join(caDir, 'clients'));
      return async (app) => {
        const ca = ensureDevCa(caDir);
        const issued = issueDevCertificate({ ca, outDir, name: id, commonName: `dtp participant ${id}`, usage: 'client' });
        const registered = await app.get(ClientCertificatesService).register(id, issued.certPem);
        return { ...registered, certificate_file: issued.certPath, key_file: issued.keyPath, ca_file: ca.certPath };
      };
    }
    case 'rotate-keys':
      return async (app) => {
        const keys = app.get(SigningKeys);
        const result = await keys.rotate();
        return { active_kid: result.kid, retired: result.retired, erased: result.purged, retired_keys_published_for_seconds: keys.publishWindowSeconds };
      };
    default:
      io.err(`unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

/** Each command and the options it takes (commander, like the workspace's other tools). */
const COMMANDS: Record<string, string[]> = {
  onboard: ['name', 'role', 'provenance-name', 'provenance-type', 'country-code', 'integration-started-at'],
  'add-credential': ['participant'],
  'revoke-client': ['client-id'],
  show: ['participant'],
  'rotate-keys': [],
  'register-certificate': ['participant', 'certificate-file'],
  'list-certificates': ['participant'],
  'remove-certificate': ['participant', 'certificate'],
  'issue-dev-certificate': ['participant', 'out', 'ca-dir'],
};

const kebab = (camel: string) => camel.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * The command line, parsed by commander: a known command, only its own options, each with a value, nothing
 * extra. A usage error is reported with the usage and exit code 2; whether the required options are there is for
 * `prepare`, which names the missing one.
 */
function parseCommandLine(argv: string[], io: CliIo): Options | number {
  let options: Options | undefined;
  const program = new Command('auth:cli')
    .exitOverride()
    .helpOption(false)
    .helpCommand(false)
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
  for (const [name, flags] of Object.entries(COMMANDS)) {
    const command = program.command(name).helpOption(false).allowExcessArguments(false);
    for (const flag of flags) command.option(`--${flag} <value>`);
    command.action((opts: Record<string, string>) => {
      options = Object.fromEntries(Object.entries(opts).map(([k, v]) => [kebab(k), v]));
    });
  }
  try {
    program.parse(argv, { from: 'user' });
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    io.err(`${err.message.replace(/^error: /, '')}\n\n${USAGE}`);
    return 2;
  }
  return options ?? {};
}

/**
 * Runs one CLI command; returns the process exit code (0 ok, 1 failure, 2 usage or invalid input). The command
 * line and the config are checked first; only then does it connect, on a Nest application context of the
 * service's own modules (AuthCliModule), closed before returning.
 */
export async function runCli(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    io.err(USAGE);
    return command ? 0 : 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.err(USAGE);
    return 0;
  }
  const parsed = parseCommandLine(argv, io);
  if (typeof parsed === 'number') return parsed;
  const options = parsed;
  const run = await prepare(command, options, io, env);
  if (typeof run === 'number') return run;

  let config: AuthConfig;
  try {
    if (!env.DATABASE_URL) io.err(`DATABASE_URL is not set: using npm start's auth database ${DEV_DATABASE_URL(env)}`);
    config = loadConfig('auth', AuthConfig, {
      ...env,
      DATABASE_URL: env.DATABASE_URL ?? DEV_DATABASE_URL(env),
      // The CLI serves no HTTP and needs no admin token; the service's own checks still apply when it runs. The
      // placeholder is random and long enough for the production rule (NODE_ENV=production in the images).
      AUTH_ADMIN_TOKEN: env.AUTH_ADMIN_TOKEN ?? randomBytes(24).toString('base64url'),
      PORT: env.PORT ?? '0',
    });
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(err.message);
      return 2;
    }
    throw err;
  }

  // stdout carries the JSON answer only: Nest's own log lines are off.
  const app = await NestFactory.createApplicationContext(AuthCliModule.forRoot(config), { logger: false, abortOnError: false });
  try {
    io.out(JSON.stringify(await run(app), null, 2));
    return 0;
  } catch (err) {
    if (err instanceof DomainError) {
      io.err(JSON.stringify(err.body, null, 2));
      return 1;
    }
    throw err;
  } finally {
    await app.close();
  }
}
