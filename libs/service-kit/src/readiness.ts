/** Named asynchronous checks behind `/health/ready`; a check throws (or times out) when its dependency is down. */
export type ReadinessCheck = () => Promise<void>;

export class Readiness {
  private readonly checks = new Map<string, ReadinessCheck>();
  private draining = false;

  add(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  /** Called at the start of a graceful shutdown: readiness fails so that load balancers stop sending traffic. */
  startDraining(): void {
    this.draining = true;
  }

  async evaluate(timeoutMs = 2000): Promise<{ ready: boolean; checks: Record<string, string> }> {
    const results: Record<string, string> = {};
    await Promise.all(
      [...this.checks].map(async ([name, check]) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            check(),
            new Promise((_, reject) => {
              timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
            }),
          ]);
          results[name] = 'up';
        } catch (err) {
          results[name] = `down: ${err instanceof Error ? err.message : String(err)}`;
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    if (this.draining) results.shutdown = 'draining';
    const ready = !this.draining && Object.values(results).every((r) => r === 'up');
    return { ready, checks: results };
  }
}
