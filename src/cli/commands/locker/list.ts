// `mcat locker`: the locker's releases, filtered, page by page or walked whole. Its options are the
// group's (commands/locker/index.ts), as `mcat locker --unavailable` takes them.
import { UsageError } from '../../errors';
import { getPath, paginate, setPath, Unread, type PageFetcher, type PaginateOptions } from '../../../client/paging';
import { lockerThreads, ReadPage, THREAD_WINDOW } from '../../locker-readers';
import { runEnv } from '../../lifecycle';
import { about, globalsOf, ofUser, output, outputFormat, say, shortWalk, type Session } from '../../context';
import { parseIntegerId } from '../../ids';
import { userSession } from '../../user-token';
import { checkPaging, listInfo } from '../../listing';
import { lockerReleasesOf, lockerTracksOf, lockerView, noDownloadsLeft, type LockerRelease } from '../../views/locker';
import type { LockerBody } from '../../../client/schemas/locker';
import { LOCKER_LIST_PATH, LOCKER_PAGING_PATH, lockerReleaseKey } from '../../../client/locker';
import { defineCommand, type CommandContext } from '../../command';
import { LOCKER_SORT_FIELDS, type LockerFlags } from './index';

export default defineCommand<LockerFlags>({
  name: 'list',
  description: "a user's locker: purchased releases and tracks, what is available, what can still be downloaded",
  groupDefault: true,
  json: async () => lockerView,
  run: runLocker,
});

function parseSort(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const m = /^([A-Za-z]+)(?::(asc|desc))?$/i.exec(value.trim());
  const field = m && LOCKER_SORT_FIELDS.find((f) => f.toLowerCase() === m[1].toLowerCase());
  if (!m || !field) {
    throw new UsageError(`--sort must be ${LOCKER_SORT_FIELDS.join('|')} with an optional :asc or :desc, got '${value}'`);
  }
  return `${field} ${(m[2] ?? (field === 'purchaseDate' ? 'desc' : 'asc')).toLowerCase()}`;
}

interface LockerFilter {
  active: boolean;
  apply(lr: LockerRelease): LockerRelease | undefined;
}

function lockerFilter(flags: LockerFlags): LockerFilter {
  if (flags.available && flags.unavailable) throw new UsageError('--available and --unavailable exclude each other');
  const releaseId = flags.release !== undefined ? parseIntegerId(flags.release, 'release') : undefined;
  const trackId = flags.track !== undefined ? parseIntegerId(flags.track, 'track') : undefined;
  let since: number | undefined;
  if (flags.purchasedSince !== undefined) {
    const v = flags.purchasedSince.trim();
    const day = /^(\d{4})-(\d{2})-(\d{2})/.exec(v);
    since = day ? Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v) : NaN;
    // Date.parse takes any day up to 31 in any month (2023-02-29 is 1 March): a day the month lacks is a typo
    if (day && new Date(Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]))).getUTCDate() !== Number(day[3])) since = NaN;
    if (!Number.isFinite(since)) throw new UsageError(`--purchased-since must be a date like 2024-01-31, got '${flags.purchasedSince}'`);
  }
  const noneLeft = flags.downloadsLeft === false;
  const trackLevel = trackId !== undefined || since !== undefined || noneLeft;
  const active = Boolean(flags.available || flags.unavailable || releaseId !== undefined || trackLevel);
  return {
    active,
    apply(lr) {
      if (flags.available && lr.available === false) return undefined;
      if (flags.unavailable && lr.available !== false) return undefined;
      if (releaseId !== undefined && Number(lr.release?.id) !== releaseId) return undefined;
      if (!trackLevel) return lr;
      const tracks = lockerTracksOf(lr).filter((lt) => {
        if (trackId !== undefined && Number(lt.track?.id) !== trackId) return false;
        if (since !== undefined && (lt.purchaseDate === undefined || !(Date.parse(lt.purchaseDate) >= since))) return false;
        if (noneLeft && !noDownloadsLeft(lt, lr)) return false;
        return true;
      });
      if (tracks.length === 0) return undefined;
      return { ...lr, lockerTracks: { ...lr.lockerTracks, lockerTrack: tracks } };
    },
  };
}

const LIST = LOCKER_LIST_PATH;
const PAGING = LOCKER_PAGING_PATH;

/** The locker listing's walk (--all, --limit) with the session's page cap and Ctrl-C; through paginate(), so its stop rules hold. (The whole-locker walk of summary/find/check is client/locker.ts lockerPages.) */
function walkLocker<T>(ctx: CommandContext, s: Session, fetchPage: PageFetcher<T>, o: Omit<PaginateOptions<T>, 'what' | 'maxPages' | 'signal'>): AsyncGenerator<T> {
  return paginate(fetchPage, { listPath: LIST, pagingPath: PAGING, key: o.items ? undefined : lockerReleaseKey, ...o, what: 'the locker', maxPages: s.client.maxPages, signal: ctx.signal, onShort: shortWalk('the locker') });
}

async function runLocker(flags: LockerFlags, ctx: CommandContext): Promise<void> {
  const paging = checkPaging(flags, 50);
  const sort = parseSort(flags.sort);
  const filter = lockerFilter(flags);
  const format = outputFormat(ctx);
  if (format === 'xml' && filter.active) {
    throw new UsageError('filters do not apply to -o xml, which prints the API\'s XML as received', 'use -o json or -o ndjson with filters');
  }
  const explicitPage = flags.page !== undefined;
  const walk = paging.all || paging.limit !== undefined || (filter.active && !explicitPage);
  const s = await userSession(ctx, flags);
  const locker = await import('../../../client/locker');
  const out = await output(ctx);
  const pageSize = paging.pageSize ?? (walk ? 50 : 10);

  if (format === 'xml') {
    const { asXml, printXml, printXmlListing } = await import('../../xml-output');
    const fetchXml = (page: number, signal?: AbortSignal) => locker.getLockerXml(s.client, { country: s.country, sort, page, pageSize, signal });
    if (!walk) return printXml(asXml(await fetchXml(paging.page)));
    const { xmlListOf } = await import('../../../output/xml-pages');
    const list = xmlListOf(PAGING, LIST);
    return printXmlListing({ list, fetchPage: fetchXml, startPage: paging.page, pageSize, limit: paging.limit, what: 'the locker', maxPages: s.client.maxPages });
  }

  out.heading(about(s, `Locker of ${ofUser(s.userId)}`));
  // a filtered list is not one page of the service's list: no "Showing 1–10 of 14" for it
  if (!walk) {
    const body = await locker.getLocker(s.client, { country: s.country, sort, page: paging.page, pageSize });
    // --page with filters: that page of the service's list, filtered (its envelope as sent)
    if (filter.active) setPath(body, LIST, lockerReleasesOf(body).map((lr) => filter.apply(lr)).filter((lr) => lr !== undefined));
    await out.document(body, lockerView, filter.active ? undefined : listInfo(PAGING, { walked: false, pageSize: paging.pageSize }));
    return;
  }

  const limit = paging.limit;
  // NDJSON of whole releases, or the table of the view's rows: a long walk's pages are read by
  // worker threads (locker-readers.ts), which make the lines or the rows
  const threads = !filter.active && (out.takesNdjsonLines || out.takesTableRows) ? lockerThreads(runEnv(), limit, out.takesTableRows ? () => out.tableColumns() : undefined) : undefined;
  if (threads && globalsOf(ctx).verbose) threads.trace = (line) => say(`> ${line}`);
  // the limit counts items after the filters, so it is applied here rather than by paginate()
  async function* pages(): AsyncGenerator<unknown> {
    let seen = 0;
    const plain = (page: number, signal: AbortSignal) => locker.getLockerUnread(s.client, { country: s.country, sort, page, pageSize, signal });
    const fetchPage = threads ? threads.fetcher(plain, (page, signal) => locker.getLockerLater(s.client, { country: s.country, sort, page, pageSize, signal }), paging.page) : plain;
    const walk = walkLocker<LockerBody | ReadPage>(ctx, s, fetchPage, {
      startPage: paging.page,
      pageSize,
      concurrency: threads ? THREAD_WINDOW : undefined,
      items: (b) => (b instanceof ReadPage ? b.keys : lockerReleasesOf(b)),
      pageInfo: (b) => (b instanceof ReadPage ? b.paging : (getPath(b, PAGING) ?? {})),
      key: (item) => (typeof item === 'string' ? item : lockerReleaseKey(item)),
      sizeOf: (b) => (b instanceof ReadPage ? b.bytes : b instanceof Unread ? b.bytes : undefined),
    });
    try {
      for await (const body of walk) {
        if (body instanceof ReadPage) {
          const last = limit !== undefined && seen + body.made.count >= limit;
          const made = last ? body.made.first(limit - seen) : body.made;
          seen += made.count;
          yield made;
          if (last) return;
          continue;
        }
        const raw = lockerReleasesOf(body);
        let items = filter.active ? raw.map((lr) => filter.apply(lr)).filter((lr) => lr !== undefined) : raw;
        const last = limit !== undefined && seen + items.length >= limit;
        if (last) items = items.slice(0, limit - seen);
        seen += items.length;
        setPath(body, LIST, items);
        yield body;
        if (last) return;
      }
    } finally {
      await threads?.close();
    }
  }
  const { mergePages } = await import('../../../output/json');
  await out.streamPages(pages(), lockerView, {
    listPath: LIST,
    // the first page's envelope with every page's releases; totalItems the service's, filtered or not
    merge: (bodies: unknown[]) => mergePages(bodies, { listPath: LIST, pagingPath: PAGING }),
    list: filter.active ? undefined : listInfo(PAGING, { walked: true, limit }),
  });
}

