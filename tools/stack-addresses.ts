/**
 * One source of addresses for `npm start` and `npm run start:kafka`. Everything a service needs to know about
 * where the others are (the token issuer, the audiences, the JWKS URL, each service's own public base address, and
 * the public addresses services put in links) is derived here from two inputs per service:
 *
 *   <SERVICE>_PORT        where it listens (default 3001-3004)
 *   <SERVICE>_PUBLIC_URL  where clients reach it (default http://localhost:<port>), e.g. behind a proxy
 *
 * so moving a port moves every address that names it. A variable the runner derives can still be set directly
 * (AUTH_ISSUER, PLATFORM_AUDIENCE, ...: the value given wins), except PUBLIC_BASE_URL, which is per service here
 * (platform and gis each have one) and so is refused: use PLATFORM_PUBLIC_URL and GIS_PUBLIC_URL.
 */
import { createServer } from 'node:net';

export const SERVICE_NAMES = ['auth', 'platform', 'search', 'gis'] as const;
export type StackService = (typeof SERVICE_NAMES)[number];
export const DEFAULT_PORTS: Readonly<Record<StackService, number>> = Object.freeze({ auth: 3001, platform: 3002, search: 3003, gis: 3004 });

export class AddressError extends Error {}

/** Ports another process holds (portsInUse): the start stops before anything runs. */
export class PortsInUse extends Error {}

/**
 * The ports of `wanted` (by the variable that sets each) that this process cannot listen on now, each as a line
 * naming the variable: the runners look before they start anything (the embedded PostgreSQL, the migrations, the
 * Kafka peer), so a port in use stops the start at once with that line instead of a stack trace once the services
 * bind. Checked as the services bind (every address, 0.0.0.0); another process can still take a port after this.
 * A value that is not a port is left to the configuration's checks, which name it.
 */
export async function portsInUse(wanted: Record<string, number>): Promise<string[]> {
  const problems: string[] = [];
  for (const [variable, port] of Object.entries(wanted)) {
    if (!Number.isInteger(port) || port < 1 || port > 65535) continue; // not a port: the configuration's checks name it
    const code = await new Promise<string | null>((resolve) => {
      const probe = createServer();
      probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
      probe.listen(port, '0.0.0.0', () => probe.close(() => resolve(null)));
    });
    if (code === 'EADDRINUSE') problems.push(`${variable}: port ${port} is already in use by another process (stop it, or set ${variable} to another port)`);
    else if (code === 'EACCES') problems.push(`${variable}: port ${port} needs privileges this process does not have (choose a port above 1023)`);
    else if (code !== null) problems.push(`${variable}: cannot listen on port ${port} (${code})`);
  }
  return problems;
}

/**
 * Stops a runner's start (PortsInUse, one line per port) when another process holds a service's port
 * (`<SERVICE>_PORT`) or one of `more` (by variable), before the runner starts anything.
 */
export async function ensurePortsFree(ports: Record<StackService, number>, more: Record<string, number> = {}): Promise<void> {
  const wanted: Record<string, number> = {};
  for (const s of SERVICE_NAMES) wanted[`${s.toUpperCase()}_PORT`] = ports[s];
  const busy = await portsInUse({ ...wanted, ...more });
  if (busy.length > 0) throw new PortsInUse(busy.join('\n'));
}

export interface StackAddresses {
  ports: Record<StackService, number>;
  /** Public base address of each service (the spec's {auth_url}, {base_url}, {search_url}, {gis_url}). */
  publicUrls: Record<StackService, string>;
  /** Variables every service gets (issuer, audiences, JWKS, the public addresses). */
  shared: Record<string, string>;
  /** The variables of one service: the shared ones, its PORT and its own PUBLIC_BASE_URL. */
  envFor(service: StackService): Record<string, string>;
  /** Lines for the ready banner: the public addresses (when any was set), the issuer and the audiences. */
  describe(): string[];
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

function publicUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AddressError(`${name}: "${value.slice(0, 200)}" is not a URL (e.g. https://api.example.com)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AddressError(`${name}: must be an http or https URL (got ${url.protocol})`);
  if (url.search || url.hash) throw new AddressError(`${name}: must not have a query or a fragment`);
  return trimSlash(value);
}

export function stackAddresses(env: Record<string, string | undefined>): StackAddresses {
  const problems: string[] = [];
  if (env.PUBLIC_BASE_URL) {
    problems.push('PUBLIC_BASE_URL: not used by the runners (platform and gis each have their own): set PLATFORM_PUBLIC_URL and GIS_PUBLIC_URL');
  }
  const ports = {} as Record<StackService, number>;
  const publicUrls = {} as Record<StackService, string>;
  for (const s of SERVICE_NAMES) {
    const portVar = `${s.toUpperCase()}_PORT`;
    const raw = env[portVar];
    if (raw === undefined || raw === '') ports[s] = DEFAULT_PORTS[s];
    else if (!/^\d{1,5}$/.test(raw) || Number(raw) < 1 || Number(raw) > 65535) problems.push(`${portVar}: a port from 1 to 65535 (got "${raw.slice(0, 40)}")`);
    else ports[s] = Number(raw);
    const urlVar = `${s.toUpperCase()}_PUBLIC_URL`;
    try {
      publicUrls[s] = env[urlVar] ? publicUrl(urlVar, env[urlVar]!) : `http://localhost:${ports[s] ?? DEFAULT_PORTS[s]}`;
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  const taken = new Map<number, StackService>();
  for (const s of SERVICE_NAMES) {
    const other = taken.get(ports[s]);
    if (other) problems.push(`${s.toUpperCase()}_PORT: ${ports[s]} is already ${other}'s port`);
    taken.set(ports[s], s);
  }
  if (problems.length > 0) throw new AddressError(problems.join('\n'));

  const derived: Record<string, string> = {
    AUTH_ISSUER: publicUrls.auth,
    // The services fetch the signing keys over loopback: the public auth address may be a proxy they cannot reach.
    AUTH_JWKS_URL: `http://localhost:${ports.auth}/.well-known/jwks.json`,
    PLATFORM_AUDIENCE: publicUrls.platform,
    SEARCH_AUDIENCE: `${publicUrls.search}/v1`,
    GIS_AUDIENCE: publicUrls.gis,
    AUTH_PUBLIC_URL: publicUrls.auth,
    PLATFORM_PUBLIC_URL: publicUrls.platform,
    SEARCH_PUBLIC_URL: publicUrls.search,
    GIS_PUBLIC_URL: publicUrls.gis,
  };
  const shared: Record<string, string> = {};
  for (const [k, v] of Object.entries(derived)) shared[k] = env[k] ? env[k]! : v;

  return {
    ports,
    publicUrls,
    shared,
    envFor(service) {
      const own: Record<string, string> = { ...shared, PORT: String(ports[service]) };
      if (service === 'platform' || service === 'gis') own.PUBLIC_BASE_URL = publicUrls[service];
      return own;
    },
    describe() {
      const explicit = SERVICE_NAMES.some((n) => env[`${n.toUpperCase()}_PUBLIC_URL`]);
      return [
        ...(explicit ? [`  public addresses: ${SERVICE_NAMES.map((n) => `${n} ${publicUrls[n]}`).join('   ')}`] : []),
        `  token issuer ${shared.AUTH_ISSUER}   (signing keys fetched from ${shared.AUTH_JWKS_URL})`,
        `  audiences    platform ${shared.PLATFORM_AUDIENCE}   search ${shared.SEARCH_AUDIENCE}   gis ${shared.GIS_AUDIENCE}`,
      ];
    },
  };
}
