export function freePort(): Promise<number>;
export function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  persistent: boolean;
  fast?: boolean;
  log?: (line: string) => void;
}): Promise<{ url: string; port: number; stop: () => Promise<void> }>;
