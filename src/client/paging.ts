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
