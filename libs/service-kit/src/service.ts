import type { OpenAPIObject } from '@nestjs/swagger';
import 'reflect-metadata'; // BaseServiceConfig's implicit conversion reads design:type, whatever loads first
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, Min, ValidateBy } from 'class-validator';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger } from 'pino';
import { loadConfig } from './config';
import { runExitHooks } from './exit-hooks';
import { createLogger, LOG_FORMAT_VALUES } from './logger';
import { TrustedProxies } from './trusted-proxies';
import { tlsProblem } from './tls-listener';

/** The reason TRUSTED_PROXIES does not parse, or undefined when it does. */
function trustedProxiesProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a comma-separated list';
  try {
    TrustedProxies.parse(value);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** `true`/`false` (also 1/0, yes/no) from the environment as a boolean; anything else is left for @IsBoolean to refuse. */
const envBoolean = ({ obj, key, value }: { obj: Record<string, unknown>; key: string; value: unknown }): unknown => {
  const raw = obj[key];
  if (typeof raw !== 'string') return value;
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(v)) return true;
  if (['false', '0', 'no'].includes(v)) return false;
  return raw;
};

/** Variables every service reads. Service config classes extend this. */
export class BaseServiceConfig {
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT!: number;

  @IsOptional()
  @IsString()
  HOST: string = '0.0.0.0';

  @IsOptional()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL: string = 'info';

  /** `json`, `pretty` or `auto` (pretty on a terminal, JSON otherwise): see createLogger. */
  @IsOptional()
  @IsIn(LOG_FORMAT_VALUES)
  LOG_FORMAT: string = 'auto';

  /** How long readiness reports "draining" before the server stops accepting requests on SIGTERM. */
  @IsOptional()
  @IsInt()
  @Min(0)
  SHUTDOWN_DRAIN_MS: number = 0;

  /**
   * How long start-up waits for background work begun after the server listens (event consumers joining their
   * groups) before reporting the service started. The server answers either way; the in-process bus is immediate.
   */
  @IsOptional()
  @IsInt()
  @Min(0)
  CONSUMER_START_WAIT_MS: number = 3000;

  /**
   * The proxies whose `X-Forwarded-For` (client address, `request.ip`) and `X-Forwarded-Proto` (TLS, hence HSTS)
   * are believed: comma-separated IPs, CIDR ranges or the names loopback, linklocal, uniquelocal. Default none:
   * the socket peer is the client and those headers are ignored. Auth reads the same variable for its limits.
   */
  @IsOptional()
  @ValidateBy({
    name: 'trustedProxies',
    validator: {
      validate: (value: unknown) => trustedProxiesProblem(value) === undefined,
      defaultMessage: (args) => trustedProxiesProblem(args?.value) ?? 'invalid',
    },
  })
  TRUSTED_PROXIES: string = '';

  /**
   * When set, `/metrics` is served on this port by a listener of its own (for the scraper) and not on PORT (so an
   * Ingress in front of PORT cannot expose it). Unset: `/metrics` on PORT.
   */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT?: number;

  /**
   * Services with an outbox (auth, platform, gis): hours a published event stays in the outbox table before it is
   * deleted (the topic keeps it); unset: 168 (7 days, @dtp/events DEFAULT_OUTBOX_RETENTION_HOURS); 0: never deleted.
   */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(87_600)
  OUTBOX_RETENTION_HOURS?: number;

  /**
   * Services with an outbox: least milliseconds between two publishes of the relay while events keep coming, so
   * that each produce request carries what accumulated meanwhile; unset: 20 (@dtp/events DEFAULT_RELAY_LINGER_MS);
   * 0: publish again as soon as the last publish ends. An event after a quiet spell is published at once.
   */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1000)
  OUTBOX_LINGER_MS?: number;

  /** `false` removes the OpenAPI page and documents (`/docs`, `/docs/json`, `/docs/yaml`). */
  @IsOptional()
  @Transform(envBoolean)
  @IsBoolean({ message: 'DOCS_ENABLED must be true or false' })
  DOCS_ENABLED: boolean = true;

  /**
   * HTTPS beside PORT (mutual TLS for legacy integrations; DESIGN.md "Legacy integrations: mutual TLS"): the server
   * certificate and its key (PEM files), and the service's own `<SERVICE>_TLS_PORT` (tlsPort). All three or none.
   * The listener asks clients for a certificate and accepts any; TLS_CLIENT_CA_FILE optionally names the CAs it
   * suggests to them. Checked at start-up: the files readable, the key the certificate's.
   */
  @IsOptional()
  @IsString()
  TLS_CERT_FILE?: string;

  @IsOptional()
  @IsString()
  TLS_KEY_FILE?: string;

  @IsOptional()
  @IsString()
  TLS_CLIENT_CA_FILE?: string;

  /**
   * Comma-separated host names: when set, a client certificate forwarded by a TRUSTED_PROXIES ingress
   * (`ssl-client-cert`, `X-Forwarded-Client-Cert`) is believed only on requests for these hosts, the ones whose
   * ingress asks for client certificates and writes that header itself. Unset: on any host (one ingress, or none).
   */
  @IsOptional()
  @IsString()
  CLIENT_CERT_PROXY_HOSTS?: string;

  /** The service's HTTPS port (its `<SERVICE>_TLS_PORT`, declared by each service's config); undefined: no HTTPS. */
  get tlsPort(): number | undefined {
    return undefined;
  }

  /** The name of the service's TLS port variable, for messages. */
  get tlsPortVariable(): string {
    return 'TLS_PORT';
  }

  /** Validation only: the TLS settings as one check (tls-listener.ts tlsProblem), described without secrets. */
  @ValidateBy({
    name: 'tlsSettings',
    validator: {
      validate: (_value: unknown, args) => tlsProblem(args?.object as BaseServiceConfig) === undefined,
      defaultMessage: (args) => tlsProblem(args?.object as BaseServiceConfig) ?? 'invalid',
    },
  })
  get TLS_SETTINGS(): string {
    return this.tlsPort === undefined ? 'off' : `HTTPS on ${this.tlsPort} with ${this.TLS_CERT_FILE ?? '(no TLS_CERT_FILE)'}`;
  }
}

export interface RunningService {
  name: string;
  url: string;
  /** Where `/metrics` is served when METRICS_PORT is set (it is then not on `url`). */
  metricsUrl?: string;
  /** The HTTPS listener's address (mutual TLS) when `<SERVICE>_TLS_PORT` is set. */
  tlsUrl?: string;
  app: NestFastifyApplication;
  /** Graceful stop: readiness fails, in-flight requests finish, background work stops, pools close. */
  close(): Promise<void>;
}

/** How a service is described to the runners (`npm start`, its own `main.ts`, tests). */
export interface ServiceDefinition<C extends BaseServiceConfig, D> {
  name: string;
  configClass: new () => C;
  /** Runs this service's migrations against the database in its config. */
  migrate(config: C, logger: Logger): Promise<void>;
  start(config: C, deps: D, logger: Logger): Promise<RunningService>;
  /** The service's OpenAPI document, built without starting it (no database, no broker): `npm run openapi`. */
  openapi(config: C): Promise<OpenAPIObject>;
}

/** Reads and validates a service's config; on failure prints which variables are wrong and exits 1. */
export function configOrExit<C extends object>(name: string, cls: new () => C, env: Record<string, string | undefined>): C {
  try {
    return loadConfig(name, cls, env);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}

/**
 * Runs one service as its own process: validate config, migrate when asked, listen, and stop gracefully on
 * SIGTERM/SIGINT (readiness drains first, then the server closes after in-flight requests).
 */
export async function runStandalone<C extends BaseServiceConfig, D>(
  def: ServiceDefinition<C, D>,
  deps: (config: C, logger: Logger) => Promise<D>,
  env: Record<string, string | undefined> = process.env,
): Promise<void> {
  const config = configOrExit(def.name, def.configClass, env);
  const logger = createLogger(def.name, config.LOG_LEVEL, config.LOG_FORMAT);
  if (env.MIGRATE_ON_START === 'true') await def.migrate(config, logger);
  let built: D;
  try {
    built = await deps(config, logger);
  } catch (err) {
    // Configuration of what the service depends on (e.g. KAFKA_*): say what is wrong, without a stack trace.
    process.stderr.write(`${def.name}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
  const service = await def.start(config, built, logger);
  logger.info({ url: service.url }, `${def.name} ready`);
  onShutdownSignal(async () => {
    logger.info('shutting down');
    await service.close();
    logger.info('stopped');
  });
}

/** Calls `stop` once on the first SIGINT/SIGTERM; a second signal exits at once. */
export function onShutdownSignal(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      process.stderr.write(`received ${signal} again, exiting now\n`);
      process.exit(130);
    }
    stopping = true;
    stop().then(
      () => runExitHooks().then(() => process.exit(0)),
      (err) => {
        process.stderr.write(`shutdown failed: ${err instanceof Error ? err.stack : String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

export async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

export { createLogger };
