export function ensureKcat(log?: (line: string) => void): void;
export function startKafkaPeer(opts?: {
  log?: (line: string) => void;
  timeoutMs?: number;
}): Promise<{ brokers: string; pid: number; exited: Promise<{ code: number | null; signal: string | null }>; stop: () => Promise<void> }>;
