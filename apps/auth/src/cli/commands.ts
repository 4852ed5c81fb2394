import { HttpException } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { createDataSource } from '@dtp/database';
import { OnboardParticipantDto } from '@dtp/domain';
import { ConfigError, loadConfig, toValidationDetails } from '@dtp/service-kit';
import { buildAuthCore } from '../auth.module';
import { AuthConfig } from '../config';
import { authEntities } from '../entities';
import { authMigrations } from '../migrations';

export const USAGE = `usage: npm run auth:cli -- <command> [options]   (prints JSON; reads DATABASE_URL and the auth service's env)

  onboard --name <name> --role <producer|manufacturer|retailer|grading_lab|non_participant>
          [--provenance-name <name> --provenance-type <type> [--country-code <XX>]]
  add-credential --participant <participant_id>
  revoke-client --client-id <client_id>
  show --participant <participant_id>
  rotate-keys
`;

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** DATABASE_URL of `npm start`'s auth database, used when the variable is not set. */
export const DEV_DATABASE_URL = (env: Record<string, string | undefined>) =>
  `postgres://postgres:postgres@127.0.0.1:${env.DTP_PG_PORT ?? '54329'}/dtp_auth`;

/** Runs one CLI command; returns the process exit code (0 ok, 1 failure, 2 usage or invalid input). */
export async function runCli(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help') {
    io.err(USAGE);
    return command ? 0 : 2;
  }
  let options: Record<string, string | undefined>;
  try {
    options = parseArgs({
      args: rest,
      strict: true,
      options: {
        name: { type: 'string' },
        role: { type: 'string' },
        'provenance-name': { type: 'string' },
        'provenance-type': { type: 'string' },
        'country-code': { type: 'string' },
        participant: { type: 'string' },
        'client-id': { type: 'string' },
      },
    }).values as Record<string, string | undefined>;
  } catch (err) {
    io.err(`${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
    return 2;
  }

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

  const ds = createDataSource({ url: config.DATABASE_URL, service: 'auth-cli', entities: authEntities, migrations: authMigrations, poolSize: 2 });
  await ds.initialize();
  try {
    const core = buildAuthCore(config, ds);
    const print = (value: unknown) => io.out(JSON.stringify(value, null, 2));
    const need = (name: string): string | undefined => {
      const value = options[name];
      if (!value) io.err(`${command}: --${name} is required\n\n${USAGE}`);
      return value;
    };
    switch (command) {
      case 'onboard': {
        const provenance =
          options['provenance-name'] || options['provenance-type'] || options['country-code']
            ? { name: options['provenance-name'], type: options['provenance-type'], country_code: options['country-code'] }
            : undefined;
        const dto = plainToInstance(OnboardParticipantDto, { name: options.name, role: options.role, provenance });
        const errors = await validate(dto, { whitelist: true, forbidNonWhitelisted: true });
        if (errors.length > 0) {
          io.err(JSON.stringify({ error: 'invalid input', detail: toValidationDetails(errors, 'options') }, null, 2));
          return 2;
        }
        print(await core.participants.onboard(dto));
        return 0;
      }
      case 'add-credential': {
        const participant = need('participant');
        if (!participant) return 2;
        print(await core.participants.addCredential(participant));
        return 0;
      }
      case 'revoke-client': {
        const clientId = need('client-id');
        if (!clientId) return 2;
        await core.participants.revokeClient(clientId);
        print({ client_id: clientId, revoked: true });
        return 0;
      }
      case 'show': {
        const participant = need('participant');
        if (!participant) return 2;
        print(await core.participants.get(participant));
        return 0;
      }
      case 'rotate-keys': {
        const result = await core.keys.rotate();
        print({ active_kid: result.kid, retired: result.retired, erased: result.purged, retired_keys_published_for_seconds: core.keys.publishWindowSeconds });
        return 0;
      }
      default:
        io.err(`unknown command "${command}"\n\n${USAGE}`);
        return 2;
    }
  } catch (err) {
    if (err instanceof HttpException) {
      io.err(JSON.stringify(err.getResponse(), null, 2));
      return 1;
    }
    if (err instanceof Error && /invalid input syntax for type uuid/.test(err.message)) {
      io.err(JSON.stringify({ message: 'participant id must be a UUID' }));
      return 2;
    }
    throw err;
  } finally {
    await ds.destroy();
  }
}
