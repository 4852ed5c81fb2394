/**
 * Graceful shutdown under load (issue 12, item 4: "zero failed requests on SIGTERM with drain"). A kit service
 * takes a steady load of concurrent keep-alive requests; close() starts with a drain (SHUTDOWN_DRAIN_MS). The
 * clients behave like a load balancer's: a poller watches /health/ready and, once it answers 503, the workers
 * stop sending. Every request sent before that moment must succeed, including those still in flight when the
 * server stops accepting.
 */
import { Controller, Get, Module, Query } from '@nestjs/common';
import http from 'node:http';
import pino from 'pino';
import { BaseServiceConfig, createHttpApp, listenService, loadConfig, newServiceContext, RunningService } from '@dtp/service-kit';

@Controller('work')
class WorkController {
  /** Simulated work: `ms` of waiting (a query, say), then a small JSON answer. */
  @Get()
  async work(@Query('ms') ms?: string) {
    await new Promise((r) => setTimeout(r, Math.min(Number(ms) || 0, 200)));
    return { ok: true };
  }
}

@Module({ controllers: [WorkController] })
class WorkModule {}

interface Outcome {
  sentDuringDrain: boolean;
  sentBeforeNotReady: boolean;
  answeredBeforeDrain?: boolean;
  status?: number;
  connection?: string;
  error?: string;
}

function get(agent: http.Agent, url: string): Promise<{ status: number; connection?: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('timed out')));
  });
}

const WORKERS = 8;
const MAX_REQUESTS = 40_000;
// Long enough that a busy machine still sends requests inside it (the poller waits for one, at most 4/5 of it).
const DRAIN_MS = 1500;

describe('graceful drain under load', () => {
  let service: RunningService;

  beforeAll(async () => {
    const ctx = newServiceContext('drain', pino({ level: 'silent' }));
    const app = await createHttpApp({ ctx, module: WorkModule, docs: { title: 't', description: 'd', version: '1' } });
    const config = loadConfig('drain', BaseServiceConfig, { PORT: '0', HOST: '127.0.0.1', SHUTDOWN_DRAIN_MS: String(DRAIN_MS) });
    service = await listenService({ name: 'drain', app, config, ctx });
  });
  afterAll(() => service.close());

  it('answers every request sent before readiness turned 503: zero failures, with requests in flight when it closes', async () => {
    const url = service.url.replace('localhost', '127.0.0.1');
    const agent = new http.Agent({ keepAlive: true, maxSockets: WORKERS });
    let notReady = false;
    let draining = false;
    let drainStartedAt = 0;
    let sentDuringDrain = 0;
    let sent = 0;
    let okBeforeClose = 0;
    const outcomes: Outcome[] = [];
    const deadline = Date.now() + 30_000;

    // The "load balancer": polls readiness on its own connections; the workers read its verdict.
    const poller = (async () => {
      const probeAgent = new http.Agent({ keepAlive: false });
      // Like a load balancer's interval: once the drain began, its verdict counts only after requests went out in
      // the drain window (every worker's next one, or at least one within most of the window: on a machine busy with
      // other work a worker can take hundreds of milliseconds to send again), so the test covers requests sent
      // while draining. A probe already in flight when the drain began answers 503 at once: that early verdict is
      // held back the same way, as the next look of a load balancer would come later.
      const holdOff = () => {
        const waited = Date.now() - drainStartedAt;
        return draining && sentDuringDrain < WORKERS && (waited < DRAIN_MS / 4 || (sentDuringDrain === 0 && waited < (DRAIN_MS * 4) / 5));
      };
      while (!notReady && Date.now() < deadline) {
        if (holdOff()) {
          await new Promise((r) => setTimeout(r, 2));
          continue;
        }
        let unready: boolean;
        try {
          unready = (await get(probeAgent, `${url}/health/ready`)).status === 503;
        } catch {
          unready = true;
        }
        if (unready && !holdOff()) notReady = true;
        if (!notReady) await new Promise((r) => setTimeout(r, 10));
      }
      probeAgent.destroy();
    })();

    const worker = async (w: number) => {
      for (let i = 0; !notReady && sent < MAX_REQUESTS && Date.now() < deadline; i++) {
        sent++;
        // Mostly quick requests, every fifth one slow, so some are in flight whenever the close comes.
        const ms = (i + w) % 5 === 0 ? 60 : 1;
        const outcome: Outcome = { sentDuringDrain: draining, sentBeforeNotReady: !notReady };
        if (draining) sentDuringDrain++;
        try {
          const res = await get(agent, `${url}/work?ms=${ms}`);
          outcome.status = res.status;
          outcome.connection = res.connection;
          outcome.answeredBeforeDrain = !draining;
          if (!draining && res.status === 200) okBeforeClose++;
        } catch (err) {
          outcome.error = err instanceof Error ? `${(err as NodeJS.ErrnoException).code ?? ''} ${err.message}` : String(err);
        }
        outcomes.push(outcome);
      }
    };
    const workers = Array.from({ length: WORKERS }, (_, w) => worker(w));

    // Close once the load is established (a count of answers, not a sleep).
    while (okBeforeClose < 300 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(okBeforeClose).toBeGreaterThanOrEqual(300);
    draining = true;
    drainStartedAt = Date.now();
    const closed = service.close();

    await Promise.all([poller, ...workers]);
    await closed;
    agent.destroy();

    const failed = outcomes.filter((o) => o.sentBeforeNotReady && o.status !== 200);
    expect(failed).toEqual([]);
    expect(notReady).toBe(true);
    // The load really ran into the drain, and the server told those keep-alive clients to reconnect elsewhere.
    const duringDrain = outcomes.filter((o) => o.sentDuringDrain && o.sentBeforeNotReady);
    expect(duringDrain.length).toBeGreaterThan(0);
    expect(duringDrain.some((o) => o.connection === 'close')).toBe(true);
    // Before the drain, keep-alive as usual.
    expect(outcomes.filter((o) => o.answeredBeforeDrain).every((o) => o.connection !== 'close')).toBe(true);
    // And then it is closed.
    await expect(get(new http.Agent({ keepAlive: false }), `${url}/health/live`)).rejects.toThrow();
  });
});
