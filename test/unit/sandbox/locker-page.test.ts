// A locker page reads each release once without keeping it (DemoData.releaseOnce): its body must
// be what the route gave when it read them through the memo (the reference), the same values in the
// same key order for every kind of locker, sort, page and counter, and a walk of the big locker
// must leave the releases kept for catalogue reads alone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DemoData, RELEASE_BASE, USER_IDS } from '../../../src/sandbox/demo-data';
import { lockerPage, lockerPageJson, lockerPageXml, type LockerPageQuery } from '../../../src/sandbox/routes/locker';
import { renderXml } from '../../../src/sandbox/render-xml';
import { Store } from '../../../src/sandbox/store';

const dir = mkdtempSync(join(tmpdir(), 'mcat-locker-page-'));
const store = Store.open(join(dir, 'data'), 1);
const demo = new DemoData(1);
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The reference: the same demo data reading every release through the memo, as the route did
 * before (commit ace9606: demo.release for the release, demo.track for each track).
 */
const reference = new DemoData(1);
const tracks = new DemoData(1);
reference.releaseOnce = (j) => reference.releaseAt(j);
// each track as demo.track(id) gives it (through the memo)
reference.trackOf = (r, n) => tracks.track(r.id * 100 + n)!;
const referencePage = (o: LockerPageQuery) => lockerPage(reference, store, o);

const base = 'http://127.0.0.1:8080';
const q = (userId: string, page: number, pageSize: number, field: LockerPageQuery['field'] = 'purchaseDate', dir: 'asc' | 'desc' = 'desc', b = base): LockerPageQuery => ({
  userId,
  field,
  dir,
  page,
  pageSize,
  base: b,
});

/** The page, as the JSON text the server sends: made from each entry's kept text. */
const pageText = (o: LockerPageQuery) => Buffer.concat(lockerPageJson(demo, store, o)).toString('utf8');

/** The page, as the XML text the server sends: made from each entry's kept XML. */
const pageXml = (o: LockerPageQuery) => Buffer.concat(lockerPageXml(demo, store, o)).toString('utf8');

/** The JSON and the XML texts the server sends are those of the reference page. */
function same(o: LockerPageQuery): void {
  const reference = referencePage(o);
  const text = JSON.stringify(reference);
  expect(pageText(o)).toBe(text);
  // again, from the texts kept by the first
  expect(pageText(o)).toBe(text);
  expect(JSON.stringify(lockerPage(demo, store, o))).toBe(text);
  const xml = renderXml(reference);
  expect(pageXml(o)).toBe(xml);
  expect(pageXml(o)).toBe(xml);
  expect(renderXml(lockerPage(demo, store, o))).toBe(xml);
}

describe('a locker page', () => {
  it('is the reference text for the small lockers (unavailable releases, partial purchases, a track with no downloads), every sort', () => {
    for (const user of [USER_IDS.locker, USER_IDS.other, USER_IDS.empty, USER_IDS.another]) {
      for (const field of ['purchaseDate', 'artistName', 'releaseTitle'] as const) {
        for (const dir of ['asc', 'desc'] as const) {
          same(q(user, 1, 50, field, dir));
          same(q(user, 2, 4, field, dir));
        }
      }
      same(q(user, 99, 10));
    }
    // what the cases covered
    const page = JSON.parse(pageText(q(USER_IDS.locker, 1, 50)));
    const releases = page.locker.lockerReleases.lockerRelease;
    expect(releases.some((r: { available: boolean }) => !r.available)).toBe(true);
    expect(releases.some((r: { lockerTracks: { lockerTrack: { completeAlbumPurchase: boolean }[] } }) => r.lockerTracks.lockerTrack.some((t) => !t.completeAlbumPurchase))).toBe(true);
  });

  it('is the reference text for pages of the big locker, sorted every way, the last page short', () => {
    for (const field of ['purchaseDate', 'artistName', 'releaseTitle'] as const) {
      for (const dir of ['asc', 'desc'] as const) {
        for (const page of field === 'purchaseDate' ? [1, 2, 163, 440] : [1, 440]) same(q(USER_IDS.bigLocker, page, 50, field, dir));
      }
    }
    same(q(USER_IDS.bigLocker, 3143, 7));
    expect(JSON.parse(pageText(q(USER_IDS.bigLocker, 3143, 7))).locker.lockerReleases.lockerRelease).toHaveLength(22000 - 3142 * 7);
  });

  it('shows the counters as they are when it is asked, and the address it is given, escaped', () => {
    const first = JSON.parse(pageText(q(USER_IDS.locker, 1, 50)));
    const tracks = first.locker.lockerReleases.lockerRelease.filter((r: { available: boolean }) => r.available).flatMap((r: { lockerTracks: { lockerTrack: unknown[] } }) => r.lockerTracks.lockerTrack);
    const [a, b] = tracks as { track: { id: number }; remainingDownloads: number }[];
    store.consumeDownload(USER_IDS.locker, a.track.id, a.remainingDownloads);
    store.consumeDownload(USER_IDS.locker, b.track.id, b.remainingDownloads);
    store.consumeDownload(USER_IDS.locker, b.track.id, b.remainingDownloads);
    const big = demo.locker(USER_IDS.bigLocker).entry(21_999).trackIds[0];
    store.consumeDownload(USER_IDS.bigLocker, big, 10);
    same(q(USER_IDS.locker, 1, 50));
    same(q(USER_IDS.bigLocker, 440, 50));
    const after = JSON.parse(pageText(q(USER_IDS.locker, 1, 50)));
    const again = after.locker.lockerReleases.lockerRelease.filter((r: { available: boolean }) => r.available).flatMap((r: { lockerTracks: { lockerTrack: unknown[] } }) => r.lockerTracks.lockerTrack);
    expect(again[0].remainingDownloads).toBe(a.remainingDownloads - 1);
    expect(again[1].remainingDownloads).toBe(b.remainingDownloads - 2);
    // an address with characters JSON escapes (a Host header is the client's to choose)
    same(q(USER_IDS.locker, 1, 50, 'purchaseDate', 'desc', 'http://[::1]:80"\\x'));
  });

  it('a title holding the count key\'s text (JSON\'s or XML\'s) moves no count (counters changed by the test before)', () => {
    const odd = new DemoData(1);
    const trackOf = odd.trackOf.bind(odd);
    odd.trackOf = (r, n) => ({ ...trackOf(r, n), title: `Track "remainingDownloads":${n} <remainingDownloads>${n}` });
    const o = q(USER_IDS.locker, 1, 50);
    const text = Buffer.concat(lockerPageJson(odd, store, o)).toString('utf8');
    expect(text).toContain('\\"remainingDownloads\\":');
    expect(text).toBe(JSON.stringify(lockerPage(odd, store, o)));
    const xml = Buffer.concat(lockerPageXml(odd, store, o)).toString('utf8');
    expect(xml).toContain('&lt;remainingDownloads&gt;');
    expect(xml).toBe(renderXml(lockerPage(odd, store, o)));
  });

  it('a page of texts made one after the other is sent from where they are kept, nothing copied; out of order, the same text', () => {
    const fresh = new DemoData(1);
    const o = q(USER_IDS.bigLocker, 3, 50);
    const first = Buffer.concat(lockerPageJson(fresh, store, o));
    const parts = lockerPageJson(fresh, store, o);
    // the envelope's head and tail around one run (two, with a comma between, where a slab ends)
    expect(parts.length === 3 || parts.length === 5).toBe(true);
    const texts = parts.slice(1, -1).filter((p) => p.length > 1);
    // the run is a view of the slab the texts were written to, not a copy of it
    for (const t of texts) expect(t.buffer.byteLength).toBeGreaterThanOrEqual(1 << 20);
    expect(Buffer.concat(parts).equals(first)).toBe(true);
    expect(first.toString('utf8')).toBe(JSON.stringify(lockerPage(fresh, store, o)));
    // the same texts in another order: runs of one text each, commas between
    const sorted = q(USER_IDS.bigLocker, 1, 50, 'artistName', 'asc');
    expect(Buffer.concat(lockerPageJson(fresh, store, sorted)).toString('utf8')).toBe(JSON.stringify(lockerPage(fresh, store, sorted)));
  });

  it('leaves the releases kept for catalogue reads where they are, however far a walk goes', () => {
    const fresh = new DemoData(1);
    const ids = Array.from({ length: 5000 }, (_, i) => RELEASE_BASE + 1 + 10_000 + i);
    const kept = ids.map((id) => fresh.release(id));
    // 4,000 releases of the big locker: the kept 5,000 and these passed the memo's 8,192
    for (let page = 1; page <= 80; page++) lockerPage(fresh, store, q(USER_IDS.bigLocker, page, 50));
    expect(ids.filter((id, i) => fresh.release(id) !== kept[i])).toEqual([]);
  });
});
