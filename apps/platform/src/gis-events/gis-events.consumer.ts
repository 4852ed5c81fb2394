import { Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { ConsumerGroups, EligibilityChangedData, EventTypes, GradingSubmittedData, Topics } from '@dtp/domain';
import { EventTransport, ParkEventError, runConsumer, RunningConsumer } from '@dtp/events';
import { PlatformDb, sqlOfManager } from '../db/platform-db';
import { DiamondChanges } from '../diamonds/diamond-changes';
import { DiamondsRepository } from '../diamonds/diamonds.repository';
import { GradedMeasurementsService } from '../graded-measurements/graded-measurements.service';

/**
 * What GIS tells platform (DESIGN.md "GIS"):
 * - gis.gradings.v1 `grading.submitted`: the lab's grading becomes an inactive, selectable `source: gis` graded
 *   measurement of the diamond (once per grading_id);
 * - gis.eligibility.v1 `eligibility.changed`: the diamond's `gis_status`, a change of the record (new version,
 *   outbox), so search shows it.
 * Both are idempotent by revision (runConsumer) and applied in the consumer's transaction.
 */
@Injectable()
export class GisEventsConsumer {
  private consumers: RunningConsumer[] = [];

  constructor(
    private readonly ds: DataSource,
    private readonly db: PlatformDb,
    private readonly diamonds: DiamondsRepository,
    private readonly changes: DiamondChanges,
    private readonly graded: GradedMeasurementsService,
  ) {}

  async start(transport: EventTransport, logger: Logger, registry?: Registry): Promise<void> {
    const common = { transport, group: ConsumerGroups.PLATFORM, dataSource: this.ds, logger, registry };
    // Each consumer is recorded as soon as it runs, so a failure to start the second stops the first (start may
    // be retried).
    try {
      this.consumers.push(
        await runConsumer({
          ...common,
          topic: Topics.GIS_GRADINGS,
          handle: async (envelope, ctx) => {
            if (envelope.event_type !== EventTypes.GRADING_SUBMITTED) return;
            const data = envelope.data as GradingSubmittedData;
            const outcome = await this.graded.recordGisGrading(sqlOfManager(ctx.manager), data);
            if (outcome === 'diamond_not_found') throw new ParkEventError(`diamond ${data.diamond_id} not found (deleted?)`);
          },
        }),
      );
      this.consumers.push(
        await runConsumer({
          ...common,
          topic: Topics.GIS_ELIGIBILITY,
          handle: async (envelope, ctx) => {
            if (envelope.event_type !== EventTypes.ELIGIBILITY_CHANGED) return;
            const data = envelope.data as EligibilityChangedData;
            const sql = sqlOfManager(ctx.manager);
            const row = await this.diamonds.find(sql, data.diamond_id, { lock: true });
            if (!row) return; // deleted meanwhile: nothing to show the status on
            if (row.gis_status === data.gis_status) return;
            await this.changes.commit(sql, row, { gis_status: data.gis_status });
            this.db.committed();
          },
        }),
      );
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.consumers.map((c) => c.close()));
    this.consumers = [];
  }
}
