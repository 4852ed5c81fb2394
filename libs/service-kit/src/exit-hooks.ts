/**
 * Work to finish after a graceful stop and before the process exits (flushing traces). Dependency-free, so the
 * telemetry bootstrap can register here before anything else is loaded.
 */
const hooks: (() => Promise<void>)[] = [];

export function beforeExit(hook: () => Promise<void>): void {
  hooks.push(hook);
}

/** Runs every hook (each at most `timeoutMs`), ignoring their failures: the process is leaving anyway. */
export async function runExitHooks(timeoutMs = 5000): Promise<void> {
  await Promise.all(
    hooks.splice(0).map((hook) => Promise.race([hook().catch(() => undefined), new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref())])),
  );
}
