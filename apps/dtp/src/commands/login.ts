import { ClientCredentialsTokenProvider, DtpApiError } from '@dtp/sdk';
import { configPath, Profile, readConfig, resolveProfile, saveProfile } from '../config';
import { EXIT, ExitCode, UsageError } from '../exit-codes';
import { CliIo, printJson } from '../io';

export interface LoginOptions {
  profile?: string;
  clientId?: string;
  clientSecretStdin?: boolean;
  authUrl?: string;
  platformUrl?: string;
  searchUrl?: string;
  gisUrl?: string;
  platformAudience?: string;
  searchAudience?: string;
  gisAudience?: string;
  verify: boolean;
  json: boolean;
}

/**
 * `dtp login`: stores a profile (client id and secret, service URLs, audiences when they are not the URLs) in
 * the config file, 0600. Values not given keep the profile's stored ones, then the environment's. The secret
 * comes from stdin (--client-secret-stdin), DTP_CLIENT_SECRET, or a prompt on a terminal; never from an argument
 * (it would stay in the shell history and the process list). Unless --no-verify, asks auth for a token first
 * and stores nothing when the credentials are refused.
 */
export async function login(io: CliIo, opts: LoginOptions): Promise<ExitCode> {
  const { name, profile: current } = resolveProfile(io.env, opts.profile);
  const profile: Profile = { ...current };
  const given: [keyof Profile, string | undefined][] = [
    ['client_id', opts.clientId],
    ['auth_url', opts.authUrl],
    ['platform_url', opts.platformUrl],
    ['search_url', opts.searchUrl],
    ['gis_url', opts.gisUrl],
    ['platform_audience', opts.platformAudience],
    ['search_audience', opts.searchAudience],
    ['gis_audience', opts.gisAudience],
  ];
  for (const [key, value] of given) if (value !== undefined) profile[key] = value;
  for (const key of ['auth_url', 'platform_url', 'search_url', 'gis_url', 'platform_audience', 'search_audience', 'gis_audience'] as const) {
    const value = profile[key];
    if (value !== undefined && !isHttpUrl(value)) throw new UsageError(`--${key.replace('_', '-')} must be an http(s) URL, got "${value}"`);
  }
  if (opts.clientSecretStdin) profile.client_secret = await readSecretFromStdin(io);
  else if (!profile.client_secret && io.stdin.isTTY && io.errIsTTY) profile.client_secret = await promptSecret(io, 'client secret: ');
  if (!profile.client_id) throw new UsageError('no client id: pass --client-id (or set DTP_CLIENT_ID)');
  if (!profile.client_secret)
    throw new UsageError('no client secret: pass --client-secret-stdin and pipe it in, set DTP_CLIENT_SECRET, or run on a terminal to be asked');
  if (!profile.auth_url) throw new UsageError('no auth URL: pass --auth-url (or set DTP_AUTH_URL)');
  if (!profile.platform_url && !profile.search_url && !profile.gis_url) {
    throw new UsageError('no service URL: pass at least one of --platform-url, --search-url, --gis-url');
  }

  let verified: string | undefined;
  if (opts.verify) verified = await verifyCredentials(profile);
  const file = saveProfile(io.env, name, profile);
  if (opts.json) printJson(io, { profile: name, config_file: file, client_id: profile.client_id, verified_audience: verified ?? null });
  else io.err(`saved profile "${name}" to ${file}${verified ? ` (credentials checked: a token for ${verified})` : ''}\n`);
  return EXIT.ok;
}

/** `dtp logout`: removes the profile from the config file. */
export function logout(io: CliIo, opts: { profile?: string }): ExitCode {
  const name = opts.profile ?? io.env.DTP_PROFILE ?? 'default';
  if (!readConfig(io.env).profiles[name]) throw new UsageError(`no profile "${name}" in ${configPath(io.env)}`);
  saveProfile(io.env, name, undefined);
  io.err(`removed profile "${name}" from ${configPath(io.env)}\n`);
  return EXIT.ok;
}

/**
 * Asks for a token for each configured API in turn (a participant's role allows one of them): the first token
 * proves the credentials. `invalid_client` means they are wrong; `invalid_target` only that the role does not use
 * that API, so the next one is tried.
 */
async function verifyCredentials(profile: Profile): Promise<string> {
  const tokens = new ClientCredentialsTokenProvider({ authUrl: profile.auth_url!, clientId: profile.client_id!, clientSecret: profile.client_secret! });
  const audiences = [
    profile.platform_url && (profile.platform_audience ?? profile.platform_url),
    profile.gis_url && (profile.gis_audience ?? profile.gis_url),
    profile.search_url && (profile.search_audience ?? `${profile.search_url.replace(/\/+$/, '')}/v1`),
  ].filter((a): a is string => Boolean(a));
  let last: unknown;
  for (const audience of audiences) {
    try {
      await tokens.getToken(audience);
      return audience;
    } catch (err) {
      last = err;
      if (!(err instanceof DtpApiError && err.reason === 'invalid_target')) throw err;
    }
  }
  throw last;
}

function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

async function readSecretFromStdin(io: CliIo): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  const secret = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0];
  if (!secret) throw new UsageError('--client-secret-stdin: stdin was empty');
  return secret;
}

/** Reads a line from the terminal without echoing it. */
function promptSecret(io: CliIo, question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    io.err(question);
    const stdin = io.stdin;
    stdin.setRawMode?.(true);
    stdin.resume();
    let value = '';
    const onData = (chunk: Buffer | string) => {
      for (const ch of String(chunk)) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new UsageError('cancelled'));
        if (ch === '\u007f') value = value.slice(0, -1);
        else value += ch;
      }
    };
    const done = (err?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      io.err('\n');
      if (err) reject(err);
      else resolve(value);
    };
    stdin.on('data', onData);
  });
}
