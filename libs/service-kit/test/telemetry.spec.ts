import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '../../..');

/**
 * In a fresh process (through the workspace's TypeScript hook, as `npm start` runs): does `startTracing` start,
 * and is the OpenTelemetry SDK loaded afterwards? Node's own module cache answers, which Jest's registry would not.
 */
function probe(env: Record<string, string>): { started: boolean; sdkLoaded: boolean } {
  const script = `
    const { startTracing } = require('@dtp/service-kit/telemetry');
    const started = startTracing('probe');
    const sdkLoaded = Object.keys(require.cache).some((k) => k.includes('@opentelemetry/sdk-node'));
    process.stdout.write(JSON.stringify({ started, sdkLoaded }));
    process.exit(0);
  `;
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
  const run = spawnSync(process.execPath, ['-r', path.join(ROOT, 'tools/register.js'), '-e', script], {
    cwd: ROOT,
    env: { ...clean, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (run.status !== 0) throw new Error(`probe exited ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout) as { started: boolean; sdkLoaded: boolean };
}

describe('startTracing', () => {
  it('with tracing off, does not even load the SDK (about 25 MiB a process would carry for nothing)', () => {
    expect(probe({})).toEqual({ started: false, sdkLoaded: false });
    expect(probe({ OTEL_TRACES_EXPORTER: 'console', OTEL_SDK_DISABLED: 'true' })).toEqual({ started: false, sdkLoaded: false });
  });

  it('with an exporter asked for, loads and starts it', () => {
    expect(probe({ OTEL_TRACES_EXPORTER: 'console' })).toEqual({ started: true, sdkLoaded: true });
  });
});
