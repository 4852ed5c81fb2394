export function freePort(): Promise<number>;
export function startEmbeddedPostgres(opts: {
  dataDir: string;
  /** Without it, a free port is chosen (and another one if that is taken before the server listens). */
  port?: number;
  /** Without `port`: chooses each candidate port (default: a free one). For tests. */
  pickPort?: () => Promise<number>;
  persistent: boolean;
  fast?: boolean;
  log?: (line: string) => void;
}): Promise<{ url: string; port: number; stop: () => Promise<void> }>;
