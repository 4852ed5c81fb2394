/** Named asynchronous checks behind `/health/ready`; a check throws (or times out) when its dependency is down. */
export type ReadinessCheck = () => Promise<void>;

/**
 * What a component says beyond up/down: `degraded` (a reason) while it works but badly (a stuck or lagging event
 * consumer: the service still answers, from state that is falling behind), and `detail` shown under `details`.
 */
export interface ComponentReport {
  degraded?: string;
  detail?: Record<string, unknown>;
}
export type ComponentReporter = () => Promise<ComponentReport | undefined>;

export interface ReadinessResult {
  /** False when a check is down or the service drains (503); a degraded component stays ready (200). */
  ready: boolean;
  status: 'ok' | 'degraded' | 'unavailable';
  /** Per component: `up`, `degraded: <why>` or `down: <why>`. */
  checks: Record<string, string>;
  /** Per component with a reporter, its detail (e.g. events: consumers with their lag and parked counts). */
  details: Record<string, Record<string, unknown>>;
}

export class Readiness {
  private readonly checks = new Map<string, ReadinessCheck>();
  private readonly reporters = new Map<string, ComponentReporter>();
  private draining = false;

  add(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  /**
   * Adds a reporter to component `name` (with or without a check of that name): when the check is up and the
   * reporter says `degraded`, the component reads `degraded: <why>`; its `detail` is shown either way.
   */
  addReport(name: string, reporter: ComponentReporter): void {
    this.reporters.set(name, reporter);
  }

  /** Called at the start of a graceful shutdown: readiness fails so that load balancers stop sending traffic. */
  startDraining(): void {
    this.draining = true;
  }

  async evaluate(timeoutMs = 2000): Promise<ReadinessResult> {
    const results: Record<string, string> = {};
    const details: Record<string, Record<string, unknown>> = {};
    const bounded = async <T>(work: Promise<T>): Promise<T> => {
      let timer: NodeJS.Timeout | undefined;
      try {
        return await Promise.race([
          work,
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
      } finally {
        clearTimeout(timer);
      }
    };
    await Promise.all(
      [...this.checks].map(async ([name, check]) => {
        try {
          await bounded(check());
          results[name] = 'up';
        } catch (err) {
          results[name] = `down: ${err instanceof Error ? err.message : String(err)}`;
        }
      }),
    );
    await Promise.all(
      [...this.reporters].map(async ([name, reporter]) => {
        let report: ComponentReport | undefined;
        try {
          report = await bounded(reporter());
        } catch (err) {
          report = { degraded: `report failed: ${err instanceof Error ? err.message : String(err)}` };
        }
        if (!report) return;
        if (report.detail) details[name] = report.detail;
        const current = results[name] ?? 'up';
        results[name] = current === 'up' && report.degraded ? `degraded: ${report.degraded}` : current;
      }),
    );
    if (this.draining) results.shutdown = 'draining';
    const states = Object.values(results);
    const ready = !this.draining && states.every((r) => r === 'up' || r.startsWith('degraded'));
    const status = !ready ? 'unavailable' : states.some((r) => r.startsWith('degraded')) ? 'degraded' : 'ok';
    return { ready, status, checks: results, details };
  }
}
