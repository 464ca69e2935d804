// Page-by-page iteration over a listing: stoppable (break out of the loop, or a limit, or a
// signal), and never asks for a page past the last one.

/* eslint-disable @typescript-eslint/no-explicit-any */

export function getPath(obj: any, path: string): any {
  let cur = obj;
  for (const k of path.split('.')) {
    if (cur === null || cur === undefined) return undefined;
    cur = cur[k];
  }
  return cur;
}

function setPath(obj: any, path: string, value: unknown): void {
  const keys = path.split('.');
  let cur = obj;
  for (const k of keys.slice(0, -1)) {
    cur[k] ??= {};
    cur = cur[k];
  }
  cur[keys[keys.length - 1]] = value;
}

export interface PaginateOptions {
  /** dotted path of the item array, e.g. 'releases.releases' */
  listPath: string;
  /** dotted path of the object with page, pageSize and totalItems, e.g. 'releases' */
  pagingPath: string;
  startPage?: number;
  /** stop after this many items; the last page is cut to fit */
  limit?: number;
  /** the page size asked for, when a body does not say it */
  pageSize?: number;
  signal?: AbortSignal;
}

/** Yields page bodies in order until the last page, the limit, or the caller stops. */
export async function* paginate<T = any>(fetchPage: (page: number) => Promise<T>, o: PaginateOptions): AsyncGenerator<T> {
  let page = o.startPage ?? 1;
  let seen = 0;
  if (o.limit !== undefined && o.limit <= 0) return;
  for (;;) {
    if (o.signal?.aborted) return;
    const body = await fetchPage(page);
    const list = getPath(body, o.listPath);
    const items: unknown[] = Array.isArray(list) ? list : [];
    const paging = getPath(body, o.pagingPath) ?? {};
    const size = Number(paging.pageSize ?? o.pageSize ?? items.length);
    const total = paging.totalItems === undefined ? undefined : Number(paging.totalItems);
    if (o.limit !== undefined && seen + items.length >= o.limit) {
      if (seen + items.length > o.limit) setPath(body, o.listPath, items.slice(0, o.limit - seen));
      yield body;
      return;
    }
    seen += items.length;
    yield body;
    if (items.length === 0) return;
    if (total !== undefined && size > 0 && page * size >= total) return;
    if (total === undefined && size > 0 && items.length < size) return;
    page++;
  }
}

/** The items of every page, one by one. */
export async function* paginateItems<I = any>(fetchPage: (page: number) => Promise<unknown>, o: PaginateOptions): AsyncGenerator<I> {
  for await (const body of paginate(fetchPage, o)) {
    const list = getPath(body, o.listPath);
    if (Array.isArray(list)) yield* list as I[];
  }
}

export interface ConcurrentPaginateOptions extends PaginateOptions {
  /** pages in flight at once, once the first page has told how many there are (default 4) */
  concurrency?: number;
}

/**
 * paginate, with the pages after the first fetched ahead: once the first page gives the total,
 * up to `concurrency` pages are in flight, and they are still yielded in order. paginate decides
 * where to stop, as it would alone; pages fetched ahead that it never asks for are aborted.
 */
export async function* paginateConcurrent<T = any>(
  fetchPage: (page: number, signal: AbortSignal) => Promise<T>,
  o: ConcurrentPaginateOptions,
): AsyncGenerator<T> {
  const width = Math.max(1, Math.floor(o.concurrency ?? 4));
  const start = o.startPage ?? 1;
  const ac = new AbortController();
  const stop = () => ac.abort();
  o.signal?.addEventListener('abort', stop, { once: true });
  const ahead = new Map<number, Promise<T>>();
  let last: number | undefined; // the last page worth asking for, once the first page is read
  let launched = start;

  const fetchOne = (page: number): Promise<T> => {
    const p = fetchPage(page, ac.signal);
    p.catch(() => undefined); // a page fetched ahead may fail before it is asked for: reported then
    return p;
  };
  const learn = (body: T) => {
    const paging = getPath(body, o.pagingPath) ?? {};
    const size = Number(paging.pageSize ?? o.pageSize ?? 0);
    const total = Number(paging.totalItems);
    if (!(size > 0) || paging.totalItems === undefined || !Number.isFinite(total)) {
      last = start; // no total: page by page
      return;
    }
    last = Math.ceil(total / size);
    if (o.limit !== undefined) last = Math.min(last, start - 1 + Math.ceil(o.limit / size));
  };
  const launch = (asked: number) => {
    if (last === undefined) return;
    for (let p = Math.max(launched + 1, asked + 1); p <= Math.min(last, asked + width - 1); p++) {
      ahead.set(p, fetchOne(p));
      launched = p;
    }
  };
  const ask = async (page: number): Promise<T> => {
    const pending = ahead.get(page);
    ahead.delete(page);
    const p = pending ?? fetchOne(page);
    launched = Math.max(launched, page);
    launch(page);
    const body = await p;
    if (last === undefined) {
      learn(body);
      launch(page);
    }
    return body;
  };
  try {
    yield* paginate(ask, o);
  } finally {
    ac.abort();
    o.signal?.removeEventListener('abort', stop);
  }
}
