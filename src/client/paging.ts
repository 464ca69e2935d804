// Page-by-page iteration over a listing: stoppable (break out of the loop, or a limit, or a
// signal), never asks for a page past the last one, fetches ahead (bounded) once the total is
// known, and stops a server whose pages do not advance.

import { AbortedError, PagingError } from './errors';
import { nodeCrypto } from './lazy-crypto';

type Obj = Record<string, unknown>;

export function getPath(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const k of path.split('.')) {
    if (cur === null || cur === undefined) return undefined;
    cur = (cur as Obj)[k];
  }
  return cur;
}

/** Sets a dotted path in an object, making the objects on the way. */
export function setPath(obj: Obj, path: string, value: unknown): void {
  const keys = path.split('.');
  let cur = obj;
  for (const k of keys.slice(0, -1)) {
    cur[k] ??= {};
    cur = cur[k] as Obj;
  }
  cur[keys[keys.length - 1]] = value;
}

/** The most pages one walk asks for before it gives up on a server that always says "more". */
export const DEFAULT_MAX_PAGES = 10_000;

export interface PageInfo {
  page?: number;
  pageSize?: number;
  totalItems?: number;
}

export interface PageGuardOptions {
  startPage?: number;
  /** default DEFAULT_MAX_PAGES */
  maxPages?: number;
  /** names the listing in errors: 'artist releases', 'the locker' */
  what?: string;
  /** an item's identity (default: its id, else a hash of its JSON) */
  key?: (item: unknown) => string;
}

/** An item's identity for the repeat rule: its `id` when it has one, else a hash of its content. */
export function itemKey(item: unknown): string {
  const id = item !== null && typeof item === 'object' ? (item as { id?: unknown }).id : undefined;
  if (typeof id === 'string' || typeof id === 'number') return `id:${id}`;
  const text = typeof item === 'string' ? item : (JSON.stringify(item) ?? String(item));
  return nodeCrypto().createHash('sha1').update(text).digest('base64');
}

/**
 * The stop rules of every walk over pages, for servers that misbehave: the page answered must be
 * the page asked for, a page must bring at least one item not seen before, and a walk asks for at
 * most maxPages pages. Each broken rule is a PagingError; totalItems alone is never trusted.
 */
export class PageGuard {
  private readonly seen = new Set<string>();
  private fetched = 0;
  private readonly maxPages: number;
  private readonly what: string;
  private readonly key: (item: unknown) => string;

  constructor(o: PageGuardOptions = {}) {
    this.maxPages = o.maxPages ?? DEFAULT_MAX_PAGES;
    this.what = o.what ?? 'the listing';
    this.key = o.key ?? itemKey;
  }

  /** Pages that may still be asked for. */
  get left(): number {
    return this.maxPages - this.fetched;
  }

  /** Before asking for another page. */
  next(): void {
    if (this.fetched >= this.maxPages) {
      throw new PagingError(`paging stopped after ${this.fetched} pages of ${this.what}: the server still says there is more`, 'cap');
    }
    this.fetched++;
  }

  /** A page as it arrived: `answered` is the page number its body gives, if any. */
  check(asked: number, answered: unknown, items: readonly unknown[]): void {
    const got = answered === undefined || answered === null || answered === '' ? undefined : Number(answered);
    if (got !== undefined && got !== asked) {
      throw new PagingError(`paging stopped: asked for page ${asked} of ${this.what}, the server answered page ${answered}`, 'stuck');
    }
    if (items.length === 0) return;
    let fresh = false;
    for (const item of items) {
      const k = this.key(item);
      if (!this.seen.has(k)) {
        this.seen.add(k);
        fresh = true;
      }
    }
    if (!fresh) throw new PagingError(`paging stopped: page ${asked} of ${this.what} repeats items already seen`, 'repeat');
  }
}

/** Pages in flight at once in a walk, once its first page has given the total (`--all`, export). */
export const DEFAULT_PAGE_CONCURRENCY = 4;

/**
 * The bytes a walk lets wait ahead of the caller: pages fetched ahead (arrived and not yet yielded,
 * or still in flight, each counted as the largest page seen so far) are at most this many bytes,
 * whatever their count. A locker page is ~250 kB (a page of 500 playlists or 50 releases far less),
 * so a normal walk never comes near it; a server whose pages are each near the body cap (64 MB) is
 * read one page at a time, as if concurrency were 1. A page's size is known only when it comes
 * unread (Unread, with its bytes; or o.sizeOf): every walk of mcat fetches its pages so (see
 * client/call.ts callUnread), since a page parsed on arrival is bounded by count alone.
 */
export const DEFAULT_AHEAD_BYTES = 16 * 1024 * 1024;

/**
 * The byte budget of things fetched ahead of their reader (a walk's pages, an export's playlists):
 * those arrived count as their size, those still in flight as the largest seen so far. One more
 * is launched only while all of them would fit in `budget` (none known yet: it fits).
 */
export class AheadBytes {
  /** the largest size seen so far, bytes (0: none known) */
  private largest = 0;

  constructor(readonly budget: number = DEFAULT_AHEAD_BYTES) {}

  /** A fetched thing's size once it has come (undefined: not known, nothing learnt); returns it when known. */
  saw(n: number | undefined): number | undefined {
    if (n === undefined || !(n >= 0)) return undefined;
    if (n > this.largest) this.largest = n;
    return n;
  }

  /** Whether one more fits with those already ahead (their sizes; undefined: still in flight). */
  fits(ahead: Iterable<{ bytes?: number }>): boolean {
    if (this.largest === 0) return true;
    let held = this.largest;
    for (const a of ahead) held += a.bytes ?? this.largest;
    return held <= this.budget;
  }
}

export interface PaginateOptions<T = unknown> extends PageGuardOptions {
  /** dotted path of the item array, e.g. 'releases.releases' */
  listPath?: string;
  /** dotted path of the object with page, pageSize and totalItems, e.g. 'releases' */
  pagingPath?: string;
  /** the items of a body, when listPath cannot say (e.g. XML text) */
  items?: (body: T) => readonly unknown[];
  /** page, pageSize and totalItems of a body, when pagingPath cannot say */
  pageInfo?: (body: T) => PageInfo;
  /** stop after this many items; the last page is cut to fit (cut only with listPath) */
  limit?: number;
  /** the page size asked for, when a body does not say it */
  pageSize?: number;
  /** stops the walk: no page is asked for after it fires, pages in flight are cancelled, and the walk throws AbortedError */
  signal?: AbortSignal;
  /** pages in flight at once once the total is known (default DEFAULT_PAGE_CONCURRENCY; 1: one at a time) */
  concurrency?: number;
  /** the bytes pages fetched ahead may hold (default DEFAULT_AHEAD_BYTES; see there) */
  aheadBytes?: number;
  /** a fetched page's size in bytes, when known (default: an Unread's `bytes`) */
  sizeOf?: (got: T | Unread<T>) => number | undefined;
  /**
   * Told when the walk ends on an empty page short of the total the service gave (items `got`
   * from the first page asked, `said` by the total): the list shrank meanwhile, or the total is
   * wrong. Not an error (a page past the last is empty: api-decisions.md); the caller says it.
   */
  onShort?: (got: number, said: number) => void;
}

/**
 * A page fetched ahead whose body is read (parsed, validated) only when its turn comes: memory
 * for the pages in flight is then their bytes, not their objects (see ApiClient.requestLater).
 */
export class Unread<T> {
  constructor(
    readonly read: () => T | Promise<T>,
    /** the body's size in bytes, when known (paginate's budget of pages fetched ahead) */
    readonly bytes?: number,
  ) {}
}

/** Fetches one page; `signal` fires when the page is no longer wanted (the walk stopped or failed). */
export type PageFetcher<T> = (page: number, signal: AbortSignal) => Promise<T | Unread<T>>;

/**
 * Yields page bodies in order until the last page, the limit, or the caller stops; throws
 * PagingError when the server's paging breaks a PageGuard rule, AbortedError when o.signal fires.
 *
 * The first page is read alone. Once a page gives the total, the next pages are fetched ahead,
 * several at a time: one more after the first page, then twice as many after each page that
 * passes the stop rules, up to o.concurrency (so a server whose paging is broken is caught
 * after two requests, not after a burst). Pages are yielded in order, and nothing is fetched
 * further ahead than o.concurrency pages, nor past o.aheadBytes (DEFAULT_AHEAD_BYTES): the pages
 * fetched ahead, those arrived by their size (o.sizeOf) and those in flight each as the largest
 * page seen so far, are launched only while they fit in it. Memory is then bounded by the pages in
 * flight however slowly the caller reads, and by bytes as well as by count: a page is always
 * read when its turn comes whatever its size (up to the client's body cap), but pages near that cap
 * are read one at a time. (A server whose pages grow suddenly can still have the pages already in
 * flight arrive, once: nothing more is launched until the bytes waiting fit again.)
 */
export async function* paginate<T = unknown>(fetchPage: PageFetcher<T>, o: PaginateOptions<T>): AsyncGenerator<T> {
  if (o.limit !== undefined && o.limit <= 0) return;
  const guard = new PageGuard(o);
  const width = Math.max(1, Math.floor(o.concurrency ?? DEFAULT_PAGE_CONCURRENCY));
  // fires when the walk ends for any reason: pages fetched ahead are then not wanted
  const done = new AbortController();
  const signal = o.signal ? AbortSignal.any([o.signal, done.signal]) : done.signal;
  const bytes = new AheadBytes(o.aheadBytes);
  const sizeOf = o.sizeOf ?? ((got: T | Unread<T>) => (got instanceof Unread ? got.bytes : undefined));
  const ahead: Ahead<T>[] = [];
  let next = o.startPage ?? 1;
  const launch = () => {
    guard.next();
    const body = fetchPage(next, signal);
    const entry: Ahead<T> = { page: next++, body };
    // its size once it has come (the page itself is not kept by this callback)
    body.then(
      (got) => {
        entry.bytes = bytes.saw(sizeOf(got));
      },
      () => undefined, // read (and rethrown) when its turn comes
    );
    ahead.push(entry);
  };
  let seen = 0;
  let passed = 0;
  try {
    for (;;) {
      if (o.signal?.aborted) throw stopped();
      if (ahead.length === 0) launch();
      const { page, body: pending } = ahead.shift()!;
      let body: T;
      try {
        body = await bodyOf(pending);
      } catch (e) {
        throw o.signal?.aborted ? stopped() : e;
      }
      const list = o.items ? o.items(body) : getPath(body, o.listPath ?? '');
      const items: readonly unknown[] = Array.isArray(list) ? list : [];
      const paging: PageInfo = (o.pageInfo ? o.pageInfo(body) : getPath(body, o.pagingPath ?? '')) ?? {};
      guard.check(page, paging.page, items);
      passed++;
      const size = Number(paging.pageSize ?? o.pageSize ?? items.length);
      const total = paging.totalItems === undefined ? undefined : Number(paging.totalItems);
      if (o.limit !== undefined && seen + items.length >= o.limit) {
        if (seen + items.length > o.limit && o.listPath) setPath(body as Record<string, unknown>, o.listPath, items.slice(0, o.limit - seen));
        yield body;
        return;
      }
      seen += items.length;
      if (items.length === 0 && total !== undefined && size > 0 && o.onShort) {
        const said = total - ((o.startPage ?? 1) - 1) * size;
        if (seen < said) o.onShort(seen, said);
      }
      const last =
        items.length === 0 ||
        (total !== undefined && size > 0 && page * size >= total) ||
        (total === undefined && size > 0 && items.length < size);
      if (!last && total !== undefined && size > 0 && width > 1) {
        // the pages the latest total (and the limit) still allow, fetched ahead while this one is used
        let end = Math.ceil(total / size);
        if (o.limit !== undefined) end = Math.min(end, page + Math.ceil((o.limit - seen) / size));
        const window = Math.min(width, 2 ** Math.max(0, passed - 1));
        while (ahead.length < window && next <= end && guard.left > 0 && bytes.fits(ahead)) launch();
      }
      yield body;
      if (last) return;
    }
  } finally {
    done.abort();
  }
}

interface Ahead<T> {
  page: number;
  body: Promise<T | Unread<T>>;
  /** its size once it has come, when known */
  bytes?: number;
}

/**
 * A page's body, read now if it came unread. Its own frame: a generator suspended in a try block
 * keeps every register, and the Unread left in one (with the page's text) outlived the page.
 */
async function bodyOf<T>(pending: Promise<T | Unread<T>>): Promise<T> {
  const got = await pending;
  return got instanceof Unread ? got.read() : got;
}

function stopped(): AbortedError {
  return new AbortedError('the listing was stopped before its last page');
}

/** The items of every page, one by one. */
export async function* paginateItems<I = unknown>(fetchPage: PageFetcher<unknown>, o: PaginateOptions): AsyncGenerator<I> {
  for await (const body of paginate(fetchPage, o)) {
    const list = o.items ? o.items(body) : getPath(body, o.listPath ?? '');
    if (Array.isArray(list)) yield* list as I[];
  }
}
