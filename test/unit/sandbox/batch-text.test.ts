// The batch call's JSON is made of each release's kept bytes (releaseBatchJson): it must be the
// text the route gave when it built every release's object and stringified the body (the
// reference: JSON.stringify(releaseBatch(ctx)), which the XML form still renders from), to the
// byte, for every reading (country, usage types, image size, filters), errors included, on the
// first call and on the calls that reuse the kept texts, and past the bound that drops them.
import { describe, expect, it } from 'vitest';
import { DemoData, N_RELEASES, RELEASE_BASE, RELEASE_MEMO_SIZE } from '../../../src/sandbox/demo-data';
import type { Ctx } from '../../../src/sandbox/http';
import { releaseBatch, releaseBatchJson } from '../../../src/sandbox/routes/catalogue';

const demo = new DemoData(1);
const consumer = demo.consumers.find((c) => c.countries.length > 1)!;

/** A catalogue GET with these query parameters (no signature: a catalogue read needs only a known key). */
function ctx(params: Record<string, string>, d: DemoData = demo): Ctx {
  const query = Object.entries({ oauth_consumer_key: consumer.key, ...params });
  return {
    req: { headers: {} },
    method: 'GET',
    path: '/1.2/release/details/batch',
    query,
    rawBody: Buffer.alloc(0),
    contentType: '',
    form: [],
    host: '127.0.0.1:8080',
    base: 'http://127.0.0.1:8080',
    wantsXml: false,
    demo: d,
    store: undefined,
    limits: undefined,
    onAuthenticated: () => undefined,
    now: () => Date.now(),
  } as unknown as Ctx;
}

const id = (j: number) => RELEASE_BASE + 1 + j;
// ordinary releases, withdrawn (j % 101 = 13: 13, 114) and unlicensed (j % 211 = 17: 17, 228) ones, ids outside the
// catalogue, a repeat, and every release type (j % 20: albums, singles, a video at 19)
const IDS = [id(0), id(1), id(13), id(17), id(19), id(12), id(39), id(114), id(228), id(0), 99, id(N_RELEASES), id(N_RELEASES - 1), id(5000), id(14)];

function same(params: Record<string, string>, d?: DemoData): string {
  const text = releaseBatchJson(ctx(params, d)).toString('utf8');
  expect(text).toBe(JSON.stringify(releaseBatch(ctx(params, d))));
  return text;
}

describe('the batch answer as text', () => {
  it('is the reference text for every country, usage type set, image size and filter, errors included, first and kept', () => {
    const usages = ['download', 'subscriptionstreaming', 'adsupportedstreaming', 'download,subscriptionstreaming', 'Download, AdSupportedStreaming', 'subscriptionstreaming,adsupportedstreaming,download'];
    for (const country of ['GB', 'US', 'DE', 'fr']) {
      for (const usageTypes of usages) {
        for (const imageSize of [undefined, '350']) {
          const params: Record<string, string> = { releaseIds: IDS.join(','), country, usageTypes, showErrors: 'true' };
          if (imageSize) params.imageSize = imageSize;
          // the first call makes and keeps each text, the second reads them
          expect(same(params)).toBe(same(params));
        }
      }
    }
    for (const filters of <Record<string, string>[]>[{ type: 'album' }, { type: 'Single' }, { type: 'video' }, { packageIds: '9' }, { packageIds: '2,12', type: 'single' }, { showErrors: 'false' }, {}]) {
      same({ releaseIds: IDS.join(','), country: 'GB', usageTypes: 'download', showErrors: 'true', ...filters });
    }
    // what the cases covered
    const body = JSON.parse(same({ releaseIds: IDS.join(','), country: 'DE', usageTypes: 'download,subscriptionstreaming', showErrors: 'true', imageSize: '350' }));
    const failed = [id(13), id(17), id(114), id(228), 99, id(N_RELEASES)];
    expect(body.items.errors.map((e: { itemId: number }) => e.itemId)).toEqual(failed);
    expect(body.items.errors[1].errorMessage).toMatch(/not licensed/);
    expect(body.items.releases.map((r: { id: number }) => r.id)).toEqual(IDS.filter((x) => !failed.includes(x)));
    expect(body.items.releases[0].download.packages[0].price.currencyCode).toBe('EUR');
    expect(body.items.releases[0].image).toMatch(/_350\.jpg$/);
    expect(body.items.releases[0].subscriptionStreaming).toBeDefined();
  });

  it('a text kept for one reading is never given for another', () => {
    const gb = JSON.parse(same({ releaseIds: String(id(0)), country: 'GB', usageTypes: 'download' }));
    const us = JSON.parse(same({ releaseIds: String(id(0)), country: 'US', usageTypes: 'download' }));
    const streaming = JSON.parse(same({ releaseIds: String(id(0)), country: 'GB', usageTypes: 'subscriptionstreaming' }));
    expect(gb.items.releases[0].download.packages[0].price.currencyCode).toBe('GBP');
    expect(us.items.releases[0].download.packages[0].price.currencyCode).toBe('USD');
    expect(streaming.items.releases[0].download).toBeUndefined();
  });

  it('is the reference text past the bound of kept texts (every kept text dropped and made again)', () => {
    const d = new DemoData(1);
    const all = Array.from({ length: RELEASE_MEMO_SIZE + 600 }, (_, j) => id(j));
    for (let i = 0; i < all.length; i += 500) same({ releaseIds: all.slice(i, i + 500).join(','), country: 'GB', usageTypes: 'download', showErrors: 'true' }, d);
    // the first releases again: dropped at the bound, made again
    same({ releaseIds: all.slice(0, 500).join(','), country: 'GB', usageTypes: 'download', showErrors: 'true' }, d);
  });

  it('refuses what the route refuses, with the same errors', () => {
    const tooMany = Array.from({ length: 501 }, (_, j) => id(j)).join(',');
    for (const params of <Record<string, string>[]>[{ country: 'GB' }, { releaseIds: 'abc', country: 'GB' }, { releaseIds: tooMany, country: 'GB' }, { releaseIds: '1', country: 'JP' }, { releaseIds: '1', country: 'GB', usageTypes: 'radio' }]) {
      const a = (() => {
        try {
          releaseBatchJson(ctx({ usageTypes: 'download', ...params }));
        } catch (e) {
          return e;
        }
      })();
      expect(a).toBeInstanceOf(Error);
      expect(() => releaseBatch(ctx({ usageTypes: 'download', ...params }))).toThrow((a as Error).message);
    }
  });
});
