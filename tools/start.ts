/**
 * `npm start`: the whole stack in one process. Starts an embedded PostgreSQL (data under .data/, kept between
 * runs) unless DATABASE_URL names a server, creates one database per service, runs every migration, and serves
 * auth, platform, search and gis on 3001-3004 with one in-process event bus. Ctrl-C stops everything cleanly.
 */
import './start-tracing';
import 'reflect-metadata';
import { runnerArguments, START_FLAGS, START_HELP } from './runner-args';
import path from 'node:path';
import { ensureDatabase, withDatabase } from '@dtp/database';
import { InProcessTransport } from '@dtp/events';
import { configOrExit, createLogger, ensureDevCa, issueDevCertificate, onShutdownSignal, RunningService } from '@dtp/service-kit';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { AddressError, ensurePortsFree, PortsInUse, SERVICE_NAMES, StackService, stackAddresses } from './stack-addresses';
import { authService } from '@dtp/auth';
import { platformService } from '@dtp/platform';
import { searchService } from '@dtp/search';
import { gisService } from '@dtp/gis';

const root = path.join(__dirname, '..');
const started = Date.now();

/** Where `npm start` keeps its PostgreSQL cluster and file blobs between runs (DTP_DATA_DIR moves it). */
const dataRoot = process.env.DTP_DATA_DIR ? path.resolve(process.env.DTP_DATA_DIR) : path.join(root, '.data');

const DEV_DEFAULTS: Record<string, string> = {
  AUTH_ADMIN_TOKEN: 'dev-admin-token',
  BLOB_STORE_DIR: path.join(dataRoot, 'blobs'),
  // Webhooks to http://localhost receivers on a laptop (docs/webhooks.md); the SSRF rules hold in live/sandbox anyway.
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
};

/** HTTPS ports of `npm start -- --tls`: the plain ports' 3001-3004 plus 440. */
const DEV_TLS_PORTS = { AUTH_TLS_PORT: '3441', PLATFORM_TLS_PORT: '3442', SEARCH_TLS_PORT: '3443', GIS_TLS_PORT: '3444' };

/**
 * `--tls`: the development CA and the localhost server certificate under <data>/tls/ (made once, kept; the server
 * certificate is made again when it has less than a month left), and the variables that turn HTTPS on.
 */
function devTlsEnv(): Record<string, string> {
  const dir = path.join(dataRoot, 'tls');
  const ca = ensureDevCa(dir);
  const serverCert = path.join(dir, 'server.pem');
  const fresh =
    existsSync(serverCert) &&
    existsSync(path.join(dir, 'server-key.pem')) &&
    Date.parse(new X509Certificate(readFileSync(serverCert)).validTo) > Date.now() + 30 * 86400_000;
  const server = fresh
    ? { certPath: serverCert, keyPath: path.join(dir, 'server-key.pem') }
    : issueDevCertificate({ ca, outDir: dir, name: 'server', commonName: 'localhost', usage: 'server' });
  return { TLS_CERT_FILE: server.certPath, TLS_KEY_FILE: server.keyPath, TLS_CLIENT_CA_FILE: ca.certPath, ...DEV_TLS_PORTS };
}

/**
 * The custody signing key of the development stack, made once under <data>/ and kept: platform signs checkpoints with
 * it and search origin credentials (both need the same key; without it search answers the credential routes 503).
 */
function devCustodyKey(): Record<string, string> {
  const file = path.join(dataRoot, 'custody-signing-key.json');
  if (!existsSync(file)) {
    mkdirSync(dataRoot, { recursive: true });
    const { privateKey } = generateKeyPairSync('ed25519');
    writeFileSync(file, JSON.stringify({ ...privateKey.export({ format: 'jwk' }), kid: `dev-custody-${Date.now().toString(36)}` }), { mode: 0o600 });
  }
  return { CUSTODY_SIGNING_KEY: readFileSync(file, 'utf8').trim() };
}

async function main() {
  const tls = flags.tls === true ? devTlsEnv() : {};
  const env: Record<string, string | undefined> = { ...DEV_DEFAULTS, ...devCustodyKey(), ...tls, ...process.env };
  if (flags.tls) env.AUTH_MTLS_URL ??= `https://localhost:${env.AUTH_TLS_PORT}`;
  const log = createLogger('start', env.LOG_LEVEL ?? 'info');
  const addresses = stackAddresses(env);
  const tlsPorts = flags.tls ? SERVICE_NAMES.map((s) => `${s.toUpperCase()}_TLS_PORT`) : [];
  await ensurePortsFree(addresses.ports, Object.fromEntries(tlsPorts.map((v) => [v, Number(env[v])])));

  let serverUrl = env.DATABASE_URL;
  let stopPostgres: (() => Promise<void>) | undefined;
  if (!serverUrl) {
    const { startEmbeddedPostgres } = await import('./embedded-pg.mjs');
    const port = Number(env.DTP_PG_PORT ?? 54329);
    const dataDir = path.join(dataRoot, 'postgres');
    const pg = await startEmbeddedPostgres({ dataDir, port, persistent: true });
    serverUrl = pg.url;
    stopPostgres = pg.stop;
    log.info({ port, dataDir }, 'embedded PostgreSQL started');
  }

  const envFor = (name: StackService): Record<string, string | undefined> => ({
    ...env,
    ...addresses.envFor(name),
    DATABASE_URL: env[`${name.toUpperCase()}_DATABASE_URL`] ?? withDatabase(serverUrl!, `dtp_${name}`),
  });

  const auth = configOrExit('auth', authService.configClass, envFor('auth'));
  const platform = configOrExit('platform', platformService.configClass, envFor('platform'));
  const search = configOrExit('search', searchService.configClass, envFor('search'));
  const gis = configOrExit('gis', gisService.configClass, envFor('gis'));

  for (const url of [auth.DATABASE_URL, platform.DATABASE_URL, search.DATABASE_URL, gis.DATABASE_URL]) await ensureDatabase(url);
  await Promise.all([authService.migrate(auth, log), platformService.migrate(platform, log), searchService.migrate(search, log), gisService.migrate(gis, log)]);

  const transport = new InProcessTransport((err, m) => log.error({ err, topic: m.topic, key: m.key }, 'event handler failed; retrying'));
  const logger = (name: string) => createLogger(name, env.LOG_LEVEL ?? 'info');
  const services: RunningService[] = [];
  services.push(await authService.start(auth, { transport }, logger('auth')));
  services.push(
    ...(await Promise.all([
      platformService.start(platform, { transport }, logger('platform')),
      searchService.start(search, { transport }, logger('search')),
      gisService.start(gis, { transport }, logger('gis')),
    ])),
  );

  onShutdownSignal(async () => {
    process.stdout.write('\nstopping ...\n');
    for (const s of [...services].reverse()) await s.close();
    await transport.close();
    await stopPostgres?.();
    process.stdout.write('stopped cleanly\n');
  });

  const lines = [
    '',
    `  auth      {auth_url}    ${services[0].url}    docs: ${services[0].url}/docs`,
    `  platform  {base_url}    ${services[1].url}    docs: ${services[1].url}/docs`,
    `  search    {search_url}  ${services[2].url}    docs: ${services[2].url}/docs`,
    `  gis       {gis_url}     ${services[3].url}    docs: ${services[3].url}/docs`,
    ...(flags.tls
      ? [
          '',
          `  mutual TLS  auth ${services[0].tlsUrl}   platform ${services[1].tlsUrl}   search ${services[2].tlsUrl}   gis ${services[3].tlsUrl}`,
          `              CA ${env.TLS_CLIENT_CA_FILE}; a legacy participant's client certificate: npm run auth:cli -- issue-dev-certificate --participant <id>`,
        ]
      : []),
    '',
    ...addresses.describe(),
    '',
    `ready: 4 services up in ${((Date.now() - started) / 1000).toFixed(1)} s (admin token for onboarding: ${auth.AUTH_ADMIN_TOKEN === DEV_DEFAULTS.AUTH_ADMIN_TOKEN ? 'dev-admin-token' : 'from AUTH_ADMIN_TOKEN'}); Ctrl-C stops`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

const flags: { tls?: boolean } = {};
const usage = runnerArguments('npm start', START_HELP, process.argv.slice(2), undefined, START_FLAGS, flags);
if (usage !== null) process.exit(usage);
else
  main().catch((err) => {
    if (err instanceof AddressError) {
      process.stderr.write(`npm start: invalid configuration:\n${err.message}\n`);
      process.exit(1);
    }
    if (err instanceof PortsInUse) {
      process.stderr.write(`npm start: cannot listen:\n${err.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`start failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
