import type { ListEnvelope } from '@dtp/domain';

export interface PageRequest {
  page: number;
  pageSize: number;
  /** Filters to keep in the page links (absent ones are left out). */
  filters: Record<string, string | undefined>;
}

/** Number of pages for `total` items (0 when there are none). */
export function pageCount(total: number, pageSize: number): number {
  return Math.ceil(total / pageSize);
}

/**
 * The list envelope with ABSOLUTE `next`/`previous` links: `{baseUrl}{path}?{filters}&page=N&page_size=M`.
 * `previous` of a page past the end points at the last page; `next` is null from the last page on.
 */
export function envelope<T>(baseUrl: string, path: string, req: PageRequest, total: number, results: T[]): ListEnvelope<T> {
  const pages = pageCount(total, req.pageSize);
  const link = (page: number): string => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(req.filters)) if (v !== undefined) params.set(k, v);
    params.set('page', String(page));
    params.set('page_size', String(req.pageSize));
    return `${baseUrl.replace(/\/+$/, '')}${path}?${params.toString()}`;
  };
  return {
    next: req.page < pages ? link(req.page + 1) : null,
    previous: req.page > 1 && pages > 0 ? link(Math.min(req.page - 1, pages)) : null,
    page: req.page,
    pages,
    total,
    results,
  };
}
