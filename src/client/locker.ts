// The user's locker (endpoint 3), as JSON or as the API's own XML.
import type { ApiClient, Later } from './http';
import { lockerBody, type LockerBody } from './schemas/locker';
import { paginate, Unread } from './paging';
import { LOCKER_LIST_PATH, LOCKER_PAGING_PATH, lockerReleaseKey } from './locker-key';
import { callJson, callXml, type Call } from './call';

export interface LockerOptions {
  country: string;
  /** "<purchaseDate|artistName|releaseTitle> <asc|desc>" */
  sort?: string;
  page?: number;
  pageSize?: number;
  signal?: AbortSignal;
}

const query = (o: LockerOptions) => ({ country: o.country, sort: o.sort, page: o.page, pageSize: o.pageSize });

const lockerCall = (o: LockerOptions): Call => ({
  method: 'GET',
  path: '/1.2/user/locker',
  opts: { query: query(o), auth: 'user', schema: lockerBody, what: 'locker', signal: o.signal },
});

export function getLocker(c: ApiClient, o: LockerOptions): Promise<LockerBody> {
  return callJson(c, lockerCall(o));
}

/** A locker page for a walk: fetched now, read (parsed, validated) at its turn (see paginate()). */
export async function getLockerUnread(c: ApiClient, o: LockerOptions): Promise<Unread<LockerBody>> {
  const later = await getLockerLater(c, o);
  return new Unread(later, later.bytes);
}

/** A locker page for a walk, fetched now: read at its turn, or its bytes taken to be read elsewhere (a worker thread). */
export async function getLockerLater(c: ApiClient, o: LockerOptions): Promise<Later<LockerBody>> {
  const call = lockerCall(o);
  return c.requestLater<LockerBody>(call.method, call.path, call.opts);
}

/** The locker page as the API's XML text (errors in it are still thrown as typed errors). */
export function getLockerXml(c: ApiClient, o: LockerOptions): Promise<string> {
  return callXml(c, lockerCall(o));
}

export { LOCKER_LIST_PATH, LOCKER_PAGING_PATH, lockerReleaseKey } from './locker-key';

/**
 * Every page of the locker, in order, through paginate(): up to `concurrency` pages fetched ahead
 * once the first page has told how many there are (default 4; 50 releases a page, the most the
 * service gives).
 */
export function lockerPages(
  c: ApiClient,
  o: Omit<LockerOptions, 'page'> & { concurrency?: number; limit?: number; onShort?: (got: number, said: number) => void },
): AsyncGenerator<LockerBody> {
  const pageSize = o.pageSize ?? 50;
  return paginate((page, signal) => getLockerUnread(c, { country: o.country, sort: o.sort, page, pageSize, signal }), {
    listPath: LOCKER_LIST_PATH,
    pagingPath: LOCKER_PAGING_PATH,
    pageSize,
    limit: o.limit,
    concurrency: o.concurrency,
    signal: o.signal,
    key: lockerReleaseKey,
    what: 'the locker',
    maxPages: c.maxPages,
    onShort: o.onShort,
  });
}
