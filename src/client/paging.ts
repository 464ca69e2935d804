// Page-by-page iteration over a listing: stoppable (break out of the loop, or a limit, or a
// signal), never asks for a page past the last one, and stops a server whose pages do not advance.

import { createHash } from 'node:crypto';
import { PagingError } from './errors';

/* eslint-disable @typescript-eslint/no-explicit-any */

export function getPath(obj: any, path: string): any {
  let cur = obj;
  for (const k of path.split('.')) {
    if (cur === null || cur === undefined) return undefined;
    cur = cur[k];
  }
  return cur;
}

export function setPath(obj: any, path: string, value: unknown): void {
  const keys = path.split('.');
  let cur = obj;
  for (const k of keys.slice(0, -1)) {
    cur[k] ??= {};
    cur = cur[k];
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
  return createHash('sha1').update(text).digest('base64');
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

export interface PaginateOptions<T = any> extends PageGuardOptions {
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
  signal?: AbortSignal;
}

/**
 * Yields page bodies in order until the last page, the limit, or the caller stops; throws
 * PagingError when the server's paging breaks a PageGuard rule.
 */
export async function* paginate<T = any>(fetchPage: (page: number) => Promise<T>, o: PaginateOptions<T>): AsyncGenerator<T> {
  const guard = new PageGuard(o);
  let page = o.startPage ?? 1;
  let seen = 0;
  if (o.limit !== undefined && o.limit <= 0) return;
  for (;;) {
    if (o.signal?.aborted) return;
    guard.next();
    const body = await fetchPage(page);
    const list = o.items ? o.items(body) : getPath(body, o.listPath ?? '');
    const items: readonly unknown[] = Array.isArray(list) ? list : [];
    const paging: PageInfo = (o.pageInfo ? o.pageInfo(body) : getPath(body, o.pagingPath ?? '')) ?? {};
    guard.check(page, paging.page, items);
    const size = Number(paging.pageSize ?? o.pageSize ?? items.length);
    const total = paging.totalItems === undefined ? undefined : Number(paging.totalItems);
    if (o.limit !== undefined && seen + items.length >= o.limit) {
      if (seen + items.length > o.limit && o.listPath) setPath(body, o.listPath, items.slice(0, o.limit - seen));
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
    const list = o.items ? o.items(body) : getPath(body, o.listPath ?? '');
    if (Array.isArray(list)) yield* list as I[];
  }
}
