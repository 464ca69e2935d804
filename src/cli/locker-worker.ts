// A worker thread of the locker walk (`locker --all -o ndjson` or `-o table`; see locker-readers.ts):
// it reads a page's body as received (decoded, interpreted and checked by the same code as the main
// thread's read: interpret() and the build's checker of the locker schema) and makes the page's NDJSON
// bytes (ndjsonBytes' lines, most cut from the page's own bytes where they provably are those
// lines: output/ndjson-slices.ts; cleaned by cleanJsonUtf8, as the sink writes them) or, for a
// table, its rows (the view's lockerRows, cells through cellText, packed: output/table-rows.ts),
// with what the main thread's stop rules need: the page's paging fields and each release's key (lockerReleaseKey).
// A page it cannot vouch for (any error, a body the checker leaves to zod, no checker: run from
// source) goes back to the main thread as its bytes, to be read there as any page is: the same
// message and exit code, never a weaker check. Built as dist/locker-worker.cjs; loads no zod, no
// undici.
import { isMainThread, parentPort } from 'node:worker_threads';
import { interpret } from '../client/interpret';
import { runCheck, type Check } from '../client/schemas/check';
import { PRECOMPILED } from '../client/schemas/precompiled';
import { LOCKER_LIST_PATH, LOCKER_PAGING_PATH, lockerReleaseKey } from '../client/locker-key';
import { getPath } from '../client/paging';
import { decodeUtf8 } from '../client/utf8';
import { ndjsonBytes, ndjsonBytesFrom } from '../output/ndjson';
import { cleanJsonUtf8 } from '../output/clean';
import { releaseBytes } from '../output/release';
import { lockerTableRows, type LockerRelease } from './views/locker';

/** A page to read: a 2xx JSON answer as received (see TakenAnswer in client/http.ts). */
export interface PageIn {
  id: number;
  bytes: ArrayBuffer;
  status: number;
  headers: Record<string, string>;
  url: string;
  what?: string;
  /** a table's rows instead of NDJSON (`locker --all -o table`); `shown`: the keys of its columns, once decided */
  table?: { shown?: string[] };
}

type Paging = { page?: unknown; pageSize?: unknown; totalItems?: unknown };

export type PageOut =
  | { id: number; ok: true; paging: Paging; keys: string[]; lines: ArrayBuffer; count: number }
  /** a table's page: lockerTableRows' packed rows (as UTF-8, to transfer), rows per release and tally numbers */
  | { id: number; ok: true; paging: Paging; keys: string[]; rows: { packed: ArrayBuffer; itemRows: number[]; tally: number[] } }
  /** not read here: the bytes, handed back as they came */
  | { id: number; ok: false; bytes: ArrayBuffer };

/** The keys leading to the page's releases. */
const LOCKER_LIST_KEYS = LOCKER_LIST_PATH.split('.');

/** The checker the build made of the locker's schema (none when run from source). */
const LOCKER_CHECK = 'locker.lockerBody';

/** Reads one page (see the top of this file); `check`: the locker schema's checker (tests give one compiled from source). */
export function readPage(m: PageIn, check: Check | undefined = PRECOMPILED[LOCKER_CHECK]): PageOut {
  const back: PageOut = { id: m.id, ok: false, bytes: m.bytes };
  if (!check) return back;
  const page = new Uint8Array(m.bytes);
  let body: unknown;
  try {
    body = interpret(m.status, m.headers, decodeUtf8(page), m.url, m.what);
  } catch {
    return back;
  }
  const fit = runCheck(check, body);
  if (!fit) return back;
  const items = getPath(fit.value, LOCKER_LIST_PATH) as unknown[];
  const paging = getPath(fit.value, LOCKER_PAGING_PATH) as { page?: unknown; pageSize?: unknown; totalItems?: unknown };
  const keys = items.map(lockerReleaseKey);
  const pagingOut = { page: paging.page, pageSize: paging.pageSize, totalItems: paging.totalItems };
  // the checker vouched for the items' shape: LockerRelease's
  // (JSON writes a NUL in a string only as \u0000: without one, no cell holds the packing's separator)
  if (m.table) {
    const rows = lockerTableRows(items as LockerRelease[], m.table.shown, Buffer.from(m.bytes).indexOf('\\u0000') < 0);
    return { id: m.id, ok: true, paging: pagingOut, keys, rows: { ...rows, packed: ownBuffer(Buffer.from(rows.packed, 'utf8')) } };
  }
  // the lines cut from the page's bytes where they are what JSON.stringify would write; not once
  // the checker changed the body (a default filled in): then the text is not the value
  const clean = cleanJsonUtf8(fit.changed ? ndjsonBytes(items) : ndjsonBytesFrom(page, LOCKER_LIST_KEYS, items));
  const lines = typeof clean === 'string' ? Buffer.from(clean, 'utf8') : clean;
  return { id: m.id, ok: true, paging: pagingOut, keys, lines: ownBuffer(lines), count: items.length };
}

/** The bytes as an ArrayBuffer of their own, to transfer (a small Buffer may sit in Node's shared pool). */
export function ownBuffer(b: Uint8Array): ArrayBuffer {
  if (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && b.buffer instanceof ArrayBuffer) return b.buffer;
  const copy = new Uint8Array(b.byteLength);
  copy.set(b);
  return copy.buffer;
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  port.on('message', (m: PageIn) => {
    let out: PageOut;
    try {
      out = readPage(m);
    } catch {
      out = { id: m.id, ok: false, bytes: m.bytes };
    }
    port.postMessage(out, [out.ok ? ('lines' in out ? out.lines : out.rows.packed) : out.bytes]);
    // the page, read: its bytes (~250 kB, no other's) given back now, not at this thread's next collection
    if (out.ok) releaseBytes(m.bytes);
  });
}
