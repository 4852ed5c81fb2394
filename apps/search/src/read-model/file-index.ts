import type { DiamondV1 } from '@dtp/domain';

/** One entry of the search file index: a blob attached to a diamond. */
export interface IndexedFile {
  hash: string;
  content_type: string | null;
  filename: string | null;
  size: number | null;
}

const LISTS = ['images', 'scan_reports', 'grading_certificates', 'videos', 'supplementary_files'] as const;
const HASH = /^[0-9a-f]{64}$/;

function entry(ref: unknown): IndexedFile | null {
  if (typeof ref !== 'object' || ref === null) return null;
  const r = ref as Record<string, unknown>;
  if (typeof r.hash !== 'string' || !HASH.test(r.hash)) return null;
  return {
    hash: r.hash,
    content_type: typeof r.content_type === 'string' ? r.content_type : null,
    filename: typeof r.filename === 'string' ? r.filename : null,
    size: typeof r.size === 'number' && Number.isFinite(r.size) ? r.size : null,
  };
}

/**
 * The files of a record: the refs under `polished.images`, `polished.scan`, `polished.scan_reports`,
 * `polished.grading_certificates`, `polished.videos` and `polished.supplementary_files` (one entry per hash: the
 * first ref that names it wins, with the content type of the first ref that has one: a grading certificate ref
 * has none, a supplementary file ref of the same bytes may).
 */
export function filesOf(record: Pick<DiamondV1, 'polished'>): IndexedFile[] {
  const polished = (record.polished ?? {}) as Record<string, unknown>;
  const refs: unknown[] = [polished.scan];
  for (const list of LISTS) {
    const value = polished[list];
    if (Array.isArray(value)) refs.push(...(value as unknown[]));
  }
  const byHash = new Map<string, IndexedFile>();
  for (const ref of refs) {
    const e = entry(ref);
    if (!e) continue;
    const seen = byHash.get(e.hash);
    if (!seen) byHash.set(e.hash, e);
    else if (seen.content_type === null && e.content_type !== null) seen.content_type = e.content_type;
  }
  return [...byHash.values()];
}
