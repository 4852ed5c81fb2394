import net from 'node:net';

/**
 * A TCP proxy between the services (or a test's own Kafka client) and the Kafka peer that can make the broker unreachable: `down()` drops every
 * open connection and refuses new ones until `up()`; `freeze()` keeps every connection open and lets nothing flow
 * either way (new ones are accepted and hang too) until `thaw()`, as a broker stopped with SIGSTOP would.
 */
export class KafkaProxy {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private refusing = false;
  private frozen = false;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<string> {
    this.server = net.createServer((client) => {
      if (this.refusing) {
        client.destroy();
        return;
      }
      const upstream = net.connect(this.target);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
      if (this.frozen) for (const s of [client, upstream]) s.pause();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return `127.0.0.1:${this.port}`;
  }

  down(): void {
    this.refusing = true;
    for (const s of this.sockets) s.destroy();
  }

  up(): void {
    this.refusing = false;
  }

  freeze(): void {
    this.frozen = true;
    for (const s of this.sockets) s.pause();
  }

  thaw(): void {
    this.frozen = false;
    for (const s of this.sockets) s.resume();
  }

  get openConnections(): number {
    return this.sockets.size;
  }

  async stop(): Promise<void> {
    this.down();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
