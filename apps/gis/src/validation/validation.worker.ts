import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Client } from 'pg';
import type { Logger } from 'pino';
import type { Counter, Histogram } from 'prom-client';
import { WakeLoop } from '@dtp/events';
import { counterOf, histogramOf, LOGGER, ServiceMetrics } from '@dtp/service-kit';
import { GIS_CONFIG } from '../common/tokens';
import { GisConfig } from '../config';
import { VALIDATION_CHANNEL } from '../migrations/1764115200000-gis-schema';
import { ScanReportRepository } from '../scan-reports/scan-report.repository';
import type { ScanReportValues } from '../scan-reports/scan-report.parser';
import { compareValidation } from './validation-compare';
import { ValidationRequestEntity } from './validation-request.entity';
import { ValidationAnswer, ValidationRepository } from './validation.repository';

/**
 * Answers validation jobs. Any number of workers (GIS replicas) share the `validation_requests` table:
 * - a worker claims up to VALIDATION_WORKER_CONCURRENCY Pending jobs with `FOR UPDATE SKIP LOCKED`, stamping
 *   `claimed_by`/`claimed_at` (its lease) and counting the attempt;
 * - it wakes at once on `NOTIFY gis_validation` (sent by the insert trigger at commit) and otherwise polls every
 *   VALIDATION_POLL_MS, which also picks up jobs whose lease (claimed_at + VALIDATION_LEASE_SECONDS) ran out
 *   because their worker crashed or was stopped mid-job;
 * - an answer is stored only while the worker still holds the job (claimed_by), so a job is answered once;
 * - a job whose processing throws is answered `Unverifiable` with `verification_error` (never left Pending), and
 *   a job claimed more than VALIDATION_MAX_ATTEMPTS times (its workers keep dying) likewise.
 */
@Injectable()
export class ValidationWorker {
  readonly workerId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  /** Poke (NOTIFY), poll and back-off: the pass claims batches while there are jobs; LISTEN again first when lost. */
  private readonly loop: WakeLoop;
  private listener?: Client;
  private readonly answered: Counter;
  /** Extracted values by report hash (immutable once parsed): saves a query per job. */
  private readonly reportCache = new Map<string, ScanReportValues>();
  private readonly latency: Histogram;

  constructor(
    private readonly requests: ValidationRepository,
    private readonly scanReports: ScanReportRepository,
    @Inject(GIS_CONFIG) private readonly config: GisConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    metrics: ServiceMetrics,
  ) {
    const registry = metrics.registry;
    this.answered = counterOf(registry, {
      name: 'gis_validations_answered_total',
      help: 'Validation requests answered, by status and whether processing failed',
      labelNames: ['status', 'error'],
    });
    this.latency = histogramOf(registry, {
      name: 'gis_validation_answer_seconds',
      help: 'Time from a validation request being accepted to its answer',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60],
    });
    this.loop = new WakeLoop({
      prepare: async () => {
        if (!this.listener) await this.listen();
      },
      pass: async () => {
        let claimed = 0;
        do claimed = await this.runBatch();
        while (claimed > 0 && this.loop.running);
      },
      pollMs: () => this.config.VALIDATION_POLL_MS,
      onError: (err, retryInMs) => {
        this.logger.warn({ err: err instanceof Error ? err.message : String(err), retryInMs }, 'validation worker: pass failed');
      },
    });
  }

  async start(): Promise<void> {
    if (this.loop.running) return;
    await this.listen();
    this.loop.start();
    this.logger.info({ workerId: this.workerId }, 'validation worker started');
  }

  /** Stops claiming, finishes the jobs in hand, closes the LISTEN connection. */
  async stop(): Promise<void> {
    if (!this.loop.running) return;
    await this.loop.stop();
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
  }

  /** Ask for an immediate pass. */
  poke(): void {
    this.loop.poke();
  }

  private async listen(): Promise<void> {
    try {
      const client = new Client({ connectionString: this.config.DATABASE_URL, application_name: 'dtp-gis-validation-listen' });
      client.on('error', (err) => {
        this.logger.warn({ err: err.message }, 'validation worker: LISTEN connection lost; polling until it is back');
        if (this.listener === client) this.listener = undefined;
      });
      client.on('notification', () => this.poke());
      await client.connect();
      await client.query(`LISTEN ${VALIDATION_CHANNEL}`);
      this.listener = client;
    } catch (err) {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'validation worker: LISTEN failed; polling only');
    }
  }

  /** Claims and answers one batch; returns how many jobs it claimed. */
  async runBatch(): Promise<number> {
    const jobs = await this.requests.claim(this.workerId, this.config.VALIDATION_LEASE_SECONDS, this.config.VALIDATION_WORKER_CONCURRENCY);
    await Promise.all(jobs.map((job) => this.process(job)));
    return jobs.length;
  }

  private async reportValues(hash: string): Promise<ScanReportValues> {
    const cached = this.reportCache.get(hash);
    if (cached) return cached;
    const report = await this.scanReports.find(hash);
    if (!report || report.outcome !== 'parsed' || !report.extracted) throw new Error(`the scan report ${hash} has no extracted values`);
    if (this.reportCache.size >= 1000) this.reportCache.delete(this.reportCache.keys().next().value as string);
    this.reportCache.set(hash, report.extracted);
    return report.extracted;
  }

  private async process(job: ValidationRequestEntity): Promise<void> {
    let result: ValidationAnswer;
    if (job.attempts > this.config.VALIDATION_MAX_ATTEMPTS) {
      result = {
        status: 'Unverifiable',
        description: null,
        error: `validation could not be completed: processing was interrupted ${job.attempts - 1} times`,
        parameters: null,
      };
    } else {
      try {
        const values = await this.reportValues(job.scan_report_hash);
        const outcome = compareValidation(job.request, values);
        result = { status: outcome.status, description: outcome.description, error: null, parameters: outcome.parameters };
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        this.logger.error({ requestId: job.request_id, err: message }, 'validation job failed');
        result = { status: 'Unverifiable', description: null, error: `validation failed: ${message}`, parameters: null };
      }
    }
    const stored = await this.requests.answer(job.request_id, this.workerId, result, job);
    if (!stored) {
      this.logger.warn({ requestId: job.request_id }, 'validation job was answered by another worker (lease expired)');
      return;
    }
    this.answered.inc({ status: result.status, error: String(result.error !== null) });
    this.latency.observe((Date.now() - new Date(job.requested_at).getTime()) / 1000);
  }
}
