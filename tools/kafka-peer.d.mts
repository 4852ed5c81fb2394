export function ensureKcat(log?: (line: string) => void): void;
export function startKafkaPeer(opts?: { log?: (line: string) => void; timeoutMs?: number }): Promise<{ brokers: string; pid: number; stop: () => Promise<void> }>;
