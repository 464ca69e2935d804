// Paged listings from the terminal: --page/--page-size for one page, --all/--limit to walk
// pages (streamed to ndjson/csv; merged into one envelope for json/xml).
import type { CommandContext, OptionDef } from './command';
import { UsageError } from './errors';
import type { View } from '../output/types';
import type { ListInfo, Shown } from '../output/sink';
import { intOption, output, outputFormat, session, shortWalk } from './context';
import { INT32_MAX } from './ids';
import type { Unread } from '../client/paging';

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
  /**
   * one page, read (parsed, validated) when its turn comes and its size known meanwhile (client/call.ts
   * callUnread), so that a walk's pages fetched ahead are bounded by bytes as well as by count;
   * `signal` fires when the page is no longer wanted (Ctrl-C, or the walk stopped)
   */
  fetchPage: (page: number, pageSize: number, signal?: AbortSignal) => Promise<Unread<unknown>>;
  /** the same page as the service's XML, as received (-o xml) */
  fetchXml: (page: number, pageSize: number, signal?: AbortSignal) => Promise<string>;
  view: View;
  /** names the listing in errors, e.g. 'artist releases' */
  what: string;
  /** the line above the table: whose data and from where */
  heading?: string;
}

export function pagingOptions(max: number): OptionDef[] {
  return [
    { flags: '--page <n>', description: 'page number (from 1)' },
    { flags: '--page-size <n>', description: `items per page (at most ${max})` },
    { flags: '--all', description: 'every page, streamed' },
    { flags: '--limit <n>', description: 'stop after N items (walks pages as needed)' },
  ];
}

/** The page size every listing of the service has when none is asked for (api-decisions.md). */
const DEFAULT_PAGE_SIZE = 10;

export function checkPaging(flags: PagingFlags, max: number): { page: number; pageSize: number | undefined; all: boolean; limit: number | undefined } {
  // page is an int32 (spec, endpoint 6): a larger one is bad input, caught before any request
  const page = intOption(flags.page, '--page', { min: 1, max: INT32_MAX }) ?? 1;
  const pageSize = intOption(flags.pageSize, '--page-size', { min: 1 });
  if (pageSize !== undefined && pageSize > max) {
    throw new UsageError(`--page-size must be at most ${max}, got ${pageSize}`, `use --all to walk every page`);
  }
  const limit = intOption(flags.limit, '--limit', { min: 1 });
  const all = Boolean(flags.all);
  // `--page N` with --all or --limit starts the walk where `--page N` alone starts: at the
  // service's default page size, not at the walk's largest (page 2 of 50 skipped items 11-50,
  // and a short list came out empty)
  const fromPage = page > 1 && pageSize === undefined && (all || limit !== undefined);
  return { page, pageSize: fromPage ? DEFAULT_PAGE_SIZE : pageSize, all, limit };
}

/**
 * A table's last line when it shows part of a longer list; none when it shows it all. The next
 * page is named with the --page-size asked for (`pageSize`): --page alone would read pages of
 * another size, and skip or repeat items.
 */
export function showingLine(s: Shown, walked: boolean, pageSize?: number): string | undefined {
  // a page past the end of a list that has items: said, not an empty table that reads as none
  if (s.shown === 0 && s.total > 0 && s.first > s.total) {
    const size = pageSize ?? (s.page > 1 ? (s.first - 1) / (s.page - 1) : undefined);
    const pages = size !== undefined && Number.isInteger(size) && size > 0 ? ` (${Math.ceil(s.total / size)} page${Math.ceil(s.total / size) === 1 ? '' : 's'} of ${size})` : '';
    return `Page ${s.page} is past the end: ${s.total} in all${pages} · --all for everything`;
  }
  if (s.shown === 0 || s.shown >= s.total) return undefined;
  const last = s.first + s.shown - 1;
  const size = pageSize !== undefined ? ` --page-size ${pageSize}` : '';
  const next = !walked && last < s.total ? `, --page ${s.page + 1}${size} for the next` : '';
  return `Showing ${s.first}–${last} of ${s.total} · --all for everything${next}`;
}

/** What the formats other than a table say on stderr when --limit stopped before the end of a list. */
export function limitLine(limit: number | undefined, s: Shown): string | undefined {
  return limit !== undefined && s.first - 1 + s.shown < s.total
    ? `mcat: stopped at --limit ${limit}: ${s.shown} of ${s.total} shown (--all for everything)`
    : undefined;
}

/**
 * What to say of a list shown in part: the table's last line, and for the other formats a
 * line on stderr when --limit stopped before the end (their envelope keeps the service's totalItems).
 */
export function listInfo(pagingPath: string, o: { walked: boolean; limit?: number; pageSize?: number }): ListInfo {
  return {
    pagingPath,
    more: (s) => showingLine(s, o.walked, o.pageSize),
    cut: (s) => limitLine(o.limit, s),
  };
}

/** The page size of a walk (--all, --limit): as asked, else the limit up to the largest page. */
export function walkPageSize(spec: Pick<ListingSpec, 'maxPageSize'>, pageSize: number | undefined, limit: number | undefined): number {
  return pageSize ?? (limit !== undefined ? Math.min(limit, spec.maxPageSize) : spec.maxPageSize);
}

export async function runListing(cmd: CommandContext, flags: PagingFlags, spec: ListingSpec): Promise<void> {
  const { page, pageSize, all, limit } = checkPaging(flags, spec.maxPageSize);
  const out = await output(cmd);
  if (outputFormat(cmd) === 'xml') return (await import('./xml-output')).runXmlListing(cmd, spec, { page, pageSize, all, limit });
  if (spec.heading) out.heading(spec.heading);
  if (!all && limit === undefined) {
    const body = await (await spec.fetchPage(page, pageSize ?? spec.defaultPageSize ?? 10)).read();
    await out.document(body, spec.view, listInfo(spec.pagingPath, { walked: false, pageSize }));
    return;
  }
  const size = walkPageSize(spec, pageSize, limit);
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
    onShort: shortWalk(spec.what),
  });
  await out.streamPages(pages, spec.view, {
    merge: (bodies: unknown[]) => mergePages(bodies, { listPath: spec.listPath, pagingPath: spec.pagingPath }),
    listPath: spec.listPath,
    list: listInfo(spec.pagingPath, { walked: true, limit }),
  });
}
