import net from 'node:net';

/**
 * A loopback address and port that a test can stop listening on and listen on again, with the port never free in
 * between: for a receiver or a proxy that is down for a while (connections refused, ECONNREFUSED) and comes back at
 * the same URL, or for a URL at which nothing ever listens.
 *
 * Closing a server and listening again on its old port would leave the port free meanwhile, for any other process on
 * the machine to take (a listener, or the kernel picking it as a client's local port), and the test would then fail
 * or, worse, talk to that process. Here a listener on 127.0.0.1 holds the port for the whole test: while it is bound
 * no other socket may listen on that port on 127.0.0.1 or on every address, and the kernel never picks it for an
 * outgoing connection. The test's own server listens on 127.0.0.2, the same port: another loopback address (Linux
 * routes all of 127.0.0.0/8 to the loopback interface), which refuses connections whenever that server is closed.
 */
export class HeldPort {
  /** The address the test's server listens on (and its URL names). */
  readonly host = '127.0.0.2';

  private constructor(
    private readonly holder: net.Server,
    readonly port: number,
  ) {}

  static async hold(): Promise<HeldPort> {
    // Nothing should ever connect to the holder (URLs name `host`); if something does, it is closed at once.
    const holder = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      holder.once('error', reject);
      holder.listen(0, '127.0.0.1', () => resolve());
    });
    return new HeldPort(holder, (holder.address() as net.AddressInfo).port);
  }

  /** `server` listens on this address and port (it may have listened and been closed here before). */
  listen(server: net.Server): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const failed = (err: NodeJS.ErrnoException) =>
        reject(
          err.code === 'EADDRNOTAVAIL'
            ? new Error(`${this.host} is not an address of this machine: add it to the loopback interface (README, "npm test")`, { cause: err })
            : err,
        );
      server.once('error', failed);
      server.listen(this.port, this.host, () => {
        server.off('error', failed);
        resolve();
      });
    });
  }

  /** Lets the port go, at the end of the test (after closing the servers that listen on it). */
  release(): Promise<void> {
    return new Promise<void>((resolve) => this.holder.close(() => resolve()));
  }
}
