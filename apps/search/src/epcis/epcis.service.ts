import { Inject, Injectable } from '@nestjs/common';
import type { GradingDataView } from '@dtp/domain';
import { SearchConfig } from '../config';
import { CustodyQueries } from '../custody/custody.queries';
import { ReadModelRepository } from '../read-model/read-model.repository';
import { EpcisDocument, toEpcisDocument } from './epcis.mapper';

/** Gathers what the EPCIS mapping needs (the custody chain, the outputs of transformations, active gradings). */
@Injectable()
export class EpcisService {
  constructor(
    @Inject(CustodyQueries) private readonly custody: CustodyQueries,
    @Inject(ReadModelRepository) private readonly records: ReadModelRepository,
    @Inject(SearchConfig) private readonly config: SearchConfig,
  ) {}

  /** The diamond's EPCIS document, or null when no custody entry of it is covered by a served checkpoint. */
  async documentFor(diamondId: string, now: Date = new Date()): Promise<EpcisDocument | null> {
    const chain = await this.custody.chainFor(diamondId);
    if (!chain) return null;
    const transformations = chain.entries.filter((e) => e.entry.action === 'polished' || e.entry.action === 'split').map((e) => e.entry_hash);
    const children = await this.custody.childrenOf(transformations, chain.checkpoint.tree_size);

    // Search holds each diamond's current record only: its active grading is what the diamond's latest grading
    // entry made active when that entry is a selection (a later deselection or another selection has its own entry).
    const gradings = new Map<string, GradingDataView>();
    const latestGrading = new Map<string, (typeof chain.entries)[number]>();
    for (const e of chain.entries)
      if (e.entry.action === 'grading_selected' || e.entry.action === 'grading_deselected') latestGrading.set(e.entry.diamond_id, e);
    for (const [id, e] of latestGrading) {
      if (e.entry.action !== 'grading_selected') continue;
      const active = (await this.records.find(id))?.grading?.[0];
      if (active) gradings.set(e.entry_hash, active);
    }
    return toEpcisDocument({ base: this.config.PLATFORM_PUBLIC_URL, entries: chain.entries, children, gradings, creationDate: now.toISOString() });
  }
}
