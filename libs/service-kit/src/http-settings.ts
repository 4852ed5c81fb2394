import { TrustedProxies } from './trusted-proxies';

/** The part of a service's config that shapes its HTTP surface (BaseServiceConfig has them all). */
export interface HttpConfig {
  TRUSTED_PROXIES?: string;
  DOCS_ENABLED?: boolean;
  METRICS_PORT?: number;
  CLIENT_CERT_PROXY_HOSTS?: string;
}

/**
 * How the kit's HTTP app behaves for one service, from its config: which proxies are believed, whether `/docs`
 * exists, whether `/metrics` is on the main port, whether the service is draining. The app is built before
 * `listenService` receives the config, so the app reads these per request; `listenService` (or `createHttpApp`
 * when given the config) applies the config before the first request can arrive.
 */
export class HttpSettings {
  private trust: (address: string, hop: number) => boolean = () => false;
  private proxies: TrustedProxies = TrustedProxies.parse('');
  docsEnabled = true;
  metricsOnMainPort = true;
  /** Set when a graceful shutdown starts: answers carry `Connection: close` so keep-alive clients move on. */
  draining = false;

  /** Fastify's `trustProxy` function (stable identity; follows the config applied later). */
  readonly trustProxy = (address: string, hop: number): boolean => this.trust(address, hop);

  /** CLIENT_CERT_PROXY_HOSTS, parsed: the hosts on which a forwarded client certificate is believed (empty: any). */
  clientCertProxyHosts: readonly string[] = [];

  /** Whether a socket peer is a TRUSTED_PROXIES hop (whose forwarded client certificate is believed). */
  readonly trustsPeer = (address: string): boolean => this.proxies.entries.length > 0 && this.proxies.trusts(address);

  apply(config: HttpConfig): void {
    this.proxies = TrustedProxies.parse(config.TRUSTED_PROXIES);
    this.trust = this.proxies.trustFunction();
    this.clientCertProxyHosts = (config.CLIENT_CERT_PROXY_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter((h) => h !== '');
    this.docsEnabled = config.DOCS_ENABLED !== false;
    this.metricsOnMainPort = config.METRICS_PORT === undefined || config.METRICS_PORT === null;
  }
}
