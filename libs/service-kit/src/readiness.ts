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
  private readonly reporters: [string, ComponentReporter][] = [];
  private draining = false;

  add(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  /**
   * Adds a reporter to component `name` (with or without a check of that name; a component may have several
   * reporters): when the check is up and a reporter says `degraded`, the component reads `degraded: <why>` (the
   * reasons of several joined by `; `); the details are shown either way, merged.
   */
  addReport(name: string, reporter: ComponentReporter): void {
    this.reporters.push([name, reporter]);
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
    const reports = await Promise.all(
      this.reporters.map(async ([name, reporter]): Promise<[string, ComponentReport | undefined]> => {
        try {
          return [name, await bounded(reporter())];
        } catch (err) {
          return [name, { degraded: `report failed: ${err instanceof Error ? err.message : String(err)}` }];
        }
      }),
    );
    // In the order the reporters were added, so that a component's reasons always read the same way.
    const reasons = new Map<string, string[]>();
    for (const [name, report] of reports) {
      if (!report) continue;
      results[name] ??= 'up';
      if (report.detail) details[name] = { ...details[name], ...report.detail };
      if (report.degraded) reasons.set(name, [...(reasons.get(name) ?? []), report.degraded]);
    }
    for (const [name, why] of reasons) {
      if (results[name] === 'up') results[name] = `degraded: ${why.join('; ')}`;
    }
    if (this.draining) results.shutdown = 'draining';
    const states = Object.values(results);
    const ready = !this.draining && states.every((r) => r === 'up' || r.startsWith('degraded'));
    const status = !ready ? 'unavailable' : states.some((r) => r.startsWith('degraded')) ? 'degraded' : 'ok';
    return { ready, status, checks: results, details };
  }
}
