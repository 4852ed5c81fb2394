import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { ApiService, createDtpClient, DtpClient, RetryOptions } from '@dtp/sdk';
import { UsageError } from './exit-codes';
import type { CliIo } from './io';

/** One profile of the config file: credentials and where the services are. */
export interface Profile {
  client_id?: string;
  client_secret?: string;
  auth_url?: string;
  platform_url?: string;
  search_url?: string;
  gis_url?: string;
  /** Only when a service's token audience is not its URL (docs/auth.md "Tokens"). */
  platform_audience?: string;
  search_audience?: string;
  gis_audience?: string;
  /** Mutual TLS (legacy participants, docs/auth.md "Mutual TLS"): the registered client certificate, its key, the servers' CA (PEM files). */
  cert_file?: string;
  key_file?: string;
  ca_file?: string;
}

export const PROFILE_KEYS = [
  'client_id',
  'client_secret',
  'auth_url',
  'platform_url',
  'search_url',
  'gis_url',
  'platform_audience',
  'search_audience',
  'gis_audience',
  'cert_file',
  'key_file',
  'ca_file',
] as const satisfies readonly (keyof Profile)[];

interface ConfigFile {
  profiles: Record<string, Profile>;
}

/** `$DTP_CONFIG_DIR`, else `$XDG_CONFIG_HOME/dtp`, else `~/.config/dtp`. */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.DTP_CONFIG_DIR) return env.DTP_CONFIG_DIR;
  return path.join(env.XDG_CONFIG_HOME || path.join(env.HOME || homedir(), '.config'), 'dtp');
}

export function configPath(env: NodeJS.ProcessEnv): string {
  return path.join(configDir(env), 'config.json');
}

export function readConfig(env: NodeJS.ProcessEnv, io?: CliIo): ConfigFile {
  const file = configPath(env);
  if (!existsSync(file)) return { profiles: {} };
  if (io && (statSync(file).mode & 0o077) !== 0) {
    io.err(`warning: ${file} holds client secrets but others may read it; run: chmod 600 ${file}\n`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`${file} is not valid JSON (${(err as Error).message}); fix it or run dtp login again`);
  }
  const profiles = (parsed as Partial<ConfigFile>)?.profiles;
  return { profiles: profiles && typeof profiles === 'object' ? profiles : {} };
}

/**
 * Saves `profile` under `name`: the directory 0700, the file 0600 (written to a temporary file with that mode,
 * then renamed over the old one, so it is never readable by others, nor half written).
 */
export function saveProfile(env: NodeJS.ProcessEnv, name: string, profile: Profile | undefined): string {
  const config = readConfig(env);
  if (profile) config.profiles[name] = profile;
  else delete config.profiles[name];
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = configPath(env);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600); // whatever the umask
  renameSync(tmp, file);
  return file;
}

/** The profile in effect: the file's profile, each value overridden by its environment variable (DTP_CLIENT_ID, ...). */
export function resolveProfile(env: NodeJS.ProcessEnv, name: string | undefined, io?: CliIo): { name: string; profile: Profile } {
  const profileName = name ?? env.DTP_PROFILE ?? 'default';
  const stored = readConfig(env, io).profiles[profileName] ?? {};
  const profile: Profile = { ...stored };
  for (const key of PROFILE_KEYS) {
    const value = env[`DTP_${key.toUpperCase()}`];
    if (value) profile[key] = value;
  }
  return { name: profileName, profile };
}

const SERVICE_URL: Record<ApiService, keyof Profile> = { platform: 'platform_url', search: 'search_url', gis: 'gis_url' };

/**
 * An SDK client for `service`, or a UsageError naming what is missing (before any request is sent).
 * Retries are on, with the SDK's defaults.
 */
export function clientFor(io: CliIo, profileName: string | undefined, service: ApiService, retry?: RetryOptions): DtpClient {
  const { name, profile } = resolveProfile(io.env, profileName, io);
  const tls = tlsOf(profile);
  const missing: string[] = [];
  // With a client certificate: client_id alone gets certificate-bound tokens; nothing at all is the legacy mode (no token).
  if (!tls || profile.client_id) {
    if (!profile.client_id) missing.push('client id (DTP_CLIENT_ID)');
    if (!profile.client_secret && !tls) missing.push('client secret (DTP_CLIENT_SECRET)');
    if (!profile.auth_url) missing.push('auth URL (DTP_AUTH_URL)');
  }
  if (!profile[SERVICE_URL[service]]) missing.push(`${service} URL (DTP_${service.toUpperCase()}_URL)`);
  if (missing.length > 0) {
    throw new UsageError(`profile "${name}" has no ${missing.join(', ')}: run \`dtp login\` or set the environment variables`);
  }
  return createDtpClient({
    authUrl: profile.auth_url,
    platformUrl: profile.platform_url,
    searchUrl: profile.search_url,
    gisUrl: profile.gis_url,
    clientId: profile.client_id,
    clientSecret: profile.client_secret,
    audiences: {
      ...(profile.platform_audience ? { platform: profile.platform_audience } : {}),
      ...(profile.search_audience ? { search: profile.search_audience } : {}),
      ...(profile.gis_audience ? { gis: profile.gis_audience } : {}),
    },
    retry,
    ...(tls ? { tls } : {}),
  });
}

/** The client certificate of `--cert`/`--key` (and `--ca`), read from their files; undefined without them. */
function tlsOf(profile: Profile): { cert: string; key: string; ca?: string } | undefined {
  if (!profile.cert_file && !profile.key_file) return undefined;
  if (!profile.cert_file || !profile.key_file) throw new UsageError('--cert and --key go together (DTP_CERT_FILE, DTP_KEY_FILE)');
  const read = (file: string, what: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read the ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  };
  return {
    cert: read(profile.cert_file, 'client certificate (--cert)'),
    key: read(profile.key_file, 'client key (--key)'),
    ...(profile.ca_file ? { ca: read(profile.ca_file, 'CA certificate (--ca)') } : {}),
  };
}
