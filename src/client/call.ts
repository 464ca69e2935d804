// An endpoint's request described once, so it can be sent for JSON (parsed, validated) or for
// the service's own XML (the text as received, for `-o xml`).
import type { ApiClient, Later, RequestOptions } from './http';
import { Unread } from './paging';

export interface Call {
  method: string;
  path: string;
  opts: RequestOptions;
}

/** The parsed body (JSON, validated by the call's schema). */
export function callJson<T>(c: ApiClient, call: Call): Promise<T> {
  return c.request<T>(call.method, call.path, call.opts);
}

/** The parsed body, read when the returned function is called, its size in bytes known meanwhile (see ApiClient.requestLater). */
export function callJsonLater<T>(c: ApiClient, call: Call): Promise<Later<T>> {
  return c.requestLater<T>(call.method, call.path, call.opts);
}

/**
 * A page of a walk (or anything fetched ahead of its reader): fetched now, its body parsed and
 * validated (then passed through `then`, if given) only when read, and its size in bytes known
 * meanwhile, so that what is fetched ahead is bounded by bytes (paginate's aheadBytes).
 */
export async function callUnread<T, U = T>(c: ApiClient, call: Call, then?: (body: T) => U): Promise<Unread<U>> {
  const later = await c.requestLater<T>(call.method, call.path, call.opts);
  const read = then ? async () => then(await later()) : (later as unknown as () => U | Promise<U>);
  return new Unread<U>(read, later.bytes);
}

/** The answer's XML as received (Accept: application/xml); an error in it is thrown as a typed error. */
export function callXml(c: ApiClient, call: Call): Promise<string> {
  const { schema: _json, ...opts } = call.opts;
  return c.requestText(call.method, call.path, { ...opts, accept: 'xml' });
}
