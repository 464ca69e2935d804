// The user's locker (endpoint 3), as JSON or as the API's own XML.
import type { ApiClient } from './http';
import { lockerBody, type LockerBody } from './schemas/locker';
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

/** The locker page as the API's XML text (errors in it are still thrown as typed errors). */
export function getLockerXml(c: ApiClient, o: LockerOptions): Promise<string> {
  return callXml(c, lockerCall(o));
}
