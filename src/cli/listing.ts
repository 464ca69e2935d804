// Paged listings from the terminal: --page/--page-size for one page, --all/--limit to walk
// pages (streamed to ndjson/csv; merged into one envelope for json/xml).
import type { Command } from 'commander';
import { UsageError } from '../client/errors';
import type { View } from '../output/types';
import { intOption, output, session } from './context';

export interface PagingFlags {
  page?: string;
  pageSize?: string;
  all?: boolean;
  limit?: string;
}

export interface ListingSpec {
  /** dotted path of the object holding page, pageSize and totalItems, e.g. 'releases' */
  pagingPath: string;
  /** dotted path of the item array, e.g. 'releases.releases' */
  listPath: string;
  maxPageSize: number;
  defaultPageSize?: number;
  /** one page; `signal` fires when the page is no longer wanted (Ctrl-C, or the walk stopped) */
  fetchPage: (page: number, pageSize: number, signal?: AbortSignal) => Promise<unknown>;
  view: View;
  /** names the listing in errors, e.g. 'artist releases' */
  what: string;
}

export function pagingOptions(cmd: Command, max: number): Command {
  return cmd
    .option('--page <n>', 'page number (from 1)')
    .option('--page-size <n>', `items per page (at most ${max})`)
    .option('--all', 'every page, streamed')
    .option('--limit <n>', 'stop after N items (walks pages as needed)');
}

export function checkPaging(flags: PagingFlags, max: number): { page: number; pageSize: number | undefined; all: boolean; limit: number | undefined } {
  const page = intOption(flags.page, '--page', { min: 1 }) ?? 1;
  const pageSize = intOption(flags.pageSize, '--page-size', { min: 1 });
  if (pageSize !== undefined && pageSize > max) {
    throw new UsageError(`--page-size must be at most ${max}, got ${pageSize}`, `use --all to walk every page`);
  }
  const limit = intOption(flags.limit, '--limit', { min: 1 });
  return { page, pageSize, all: Boolean(flags.all), limit };
}

export async function runListing(cmd: Command, flags: PagingFlags, spec: ListingSpec): Promise<void> {
  const { page, pageSize, all, limit } = checkPaging(flags, spec.maxPageSize);
  const out = await output(cmd);
  if (!all && limit === undefined) {
    const body = await spec.fetchPage(page, pageSize ?? spec.defaultPageSize ?? 10);
    await out.document(body, spec.view);
    return;
  }
  const size = pageSize ?? (limit !== undefined ? Math.min(limit, spec.maxPageSize) : spec.maxPageSize);
  const { mergePages } = await import('../output/json');
  const { paginate } = await import('../client/paging');
  const { client } = await session(cmd);
  const { interruptSignal } = await import('./lifecycle');
  const pages = paginate((p, signal) => spec.fetchPage(p, size, signal), {
    listPath: spec.listPath,
    pagingPath: spec.pagingPath,
    startPage: page,
    pageSize: size,
    limit,
    what: spec.what,
    maxPages: client.maxPages,
    signal: interruptSignal(),
  });
  await out.streamPages(pages, spec.view, {
    merge: (bodies: unknown[]) => mergePages(bodies, { listPath: spec.listPath, pagingPath: spec.pagingPath }),
  });
}
