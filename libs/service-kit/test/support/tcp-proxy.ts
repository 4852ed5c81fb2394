import net from 'node:net';
import { HeldPort } from '@dtp/testing';

/**
 * A TCP proxy to a server (here: the test run's PostgreSQL) that a test can cut and restore, to make a database
 * unreachable for one service without stopping the shared server. `cut()` stops listening (new connections are
 * refused) and destroys every open connection (the service's pooled connections end mid-stream); `restore()`
 * listens again on the same address and port, which the proxy holds all along (`HeldPort`), so that no other process
 * can take it while the proxy is cut.
 */
export class TcpProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly held: HeldPort,
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(await HeldPort.hold(), targetHost, targetPort);
    await proxy.listen();
    return proxy;
  }

  /** `url` with its host and port replaced by the proxy's. */
  rewrite(url: string): string {
    const u = new URL(url);
    u.hostname = this.held.host;
    u.port = String(this.held.port);
    return u.toString();
  }

  get listening(): boolean {
    return this.server !== undefined;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async restore(): Promise<void> {
    if (!this.server) await this.listen();
  }

  async close(): Promise<void> {
    await this.cut();
    await this.held.release();
  }

  private async listen(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await this.held.listen(server);
    this.server = server;
  }
}
