// The in-place checker (schemas/in-place.ts) against zod itself: on every body it accepts, zod
// accepts the same body and outputs the same values; whatever zod refuses, it leaves to zod, with
// the body untouched. Examples of each schema's variations, then random damage to whole bodies.
import { describe, expect, it } from 'vitest';
import * as z from '../../../src/client/schemas/zod';
import { lockerBody } from '../../../src/client/schemas/locker';
import { playlistGroupBody, playlistsBody } from '../../../src/client/schemas/playlist';
import { artistReleasesBody, batchBody, releaseDetailsBody } from '../../../src/client/schemas/release';
import { releaseTracksBody, trackMetadataBody } from '../../../src/client/schemas/track';
import { checkedInPlace, parseInPlace } from '../../../src/client/schemas/in-place';
import { validate } from '../../../src/client/interpret';
import { ResponseError } from '../../../src/client/errors';
import { PRECOMPILE, precompiledSource } from '../../../src/client/schemas/precompile';
import type { runCheck as runCheckType, Check } from '../../../src/client/schemas/check';
import { parseApiXml } from '../../../src/client/xml';
import { fixture } from './helpers';
import { buildSync } from 'esbuild';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const clone = <T>(v: T): T => structuredClone(v);

function lockerPage(): any {
  const track = (id: number, left: number | undefined) => ({
    track: { id, title: `T${id}`, artist: { id: 9, name: 'A', appearsAs: 'A', slug: 'a' }, trackNumber: 1, duration: 200, disc: 1, number: 1, isrc: 'GB1' },
    ...(left === undefined ? {} : { remainingDownloads: left }),
    purchaseId: 8000001,
    purchaseDate: '2024-06-01T12:00:00Z',
    completeAlbumPurchase: true,
    downloadUrls: { downloadUrl: [{ url: `http://x/media/download/${id}?formatId=17`, format: { id: 17, description: 'MP3 320' } }] },
  });
  return {
    status: 'ok',
    version: '1.2',
    schema: 'https://x/api.xsd',
    locker: {
      lockerReleases: {
        page: 1,
        pageSize: 2,
        totalItems: 3,
        lockerRelease: [
          {
            release: { id: 100001, title: 'R', version: '', type: 'Album', barcode: '1', artist: { id: 9, name: 'A' }, label: { id: 5, name: 'L' }, licensor: { id: 7, name: 'Li' }, download: { releaseDate: '2020-01-01T00:00:00Z' }, extra: [1, { x: null }] },
            lockerTracks: { lockerTrack: [track(10000101, 3), track(10000102, 0)] },
            available: true,
          },
          { release: { id: 100002, title: 'Gone' }, lockerTracks: { lockerTrack: [{ ...track(10000201, undefined), downloadUrls: null }] }, available: false },
        ],
      },
    },
  };
}

function releasesPage(): any {
  return {
    status: 'ok',
    releases: {
      page: 1,
      pageSize: 10,
      totalItems: 2,
      releases: [
        {
          id: 1,
          title: 'One',
          barcode: '0602537',
          year: '2011',
          explicitContent: false,
          artist: { id: 2, name: 'B', isPlaceholderImage: false },
          download: { releaseDate: 'x', packages: [{ id: 2, description: 'standard', price: { currencyCode: 'GBP', sevendigitalPrice: 0.79, recommendedRetailPrice: '0.99' }, formats: [{ id: 17, description: 'MP3' }] }] },
        },
        { id: '3', barcode: 5060147126106, year: 2012, download: { packages: [{ id: '9', price: { servicePrice: null } }] } },
      ],
    },
  };
}

const EXAMPLES: [string, any, any][] = [
  ['locker page', lockerBody, lockerPage()],
  ['locker: defaults where parents are present', lockerBody, { locker: { lockerReleases: { lockerRelease: [{ release: { id: 1 }, lockerTracks: { lockerTrack: [{ track: { id: 2 }, downloadUrls: {} }] } }, { release: { id: 4 }, lockerTracks: {} }, { release: { id: 5 } }] } } }],
  ['locker: no list', lockerBody, { locker: { lockerReleases: {} } }],
  ['locker: ids as strings', lockerBody, { locker: { lockerReleases: { lockerRelease: [{ release: { id: '0042', artist: { id: '7' } }, lockerTracks: { lockerTrack: [{ track: { id: '12' } }] } }] } } }],
  ['artist releases with prices, string ids and a numeric barcode', artistReleasesBody, releasesPage()],
  ['artist releases: no list', artistReleasesBody, { releases: { page: 1 } }],
  ['batch with error aliases', batchBody, { status: 'ok', items: { releases: [{ id: '1' }], errors: [{ Itemid: '2', code: '2001' }, { id: 3 }] } }],
  ['batch: nothing', batchBody, { items: {} }],
  ['release details', releaseDetailsBody, { release: releasesPage().releases.releases[0] }],
  ['tracks', releaseTracksBody, { tracks: { page: 1, tracks: [{ id: 1, release: { id: '2' }, trackNumber: 3, discNumber: 1 }] } }],
  ['track metadata, nullables and records', trackMetadataBody, { track: { id: 1, tagstrengths: { a: 1 }, bpm: null, embeddings: [0.5, 1], isrc: null } }],
  ['playlists, numeric ids', playlistsBody, { playlists: { page: 1, playlist: [{ id: 987, annotations: { k: 1 }, tags: null, description: null, tracks: [{ id: 3, trackId: 55 }, { trackId: '56' }] }] } }],
  ['group', playlistGroupBody, { playlistGroup: { id: 7, playlists: [{ id: 8 }] } }],
];

describe('the schemas of listings are checked in place (not copied by zod)', () => {
  it.each([
    ['locker', lockerBody],
    ['artist releases', artistReleasesBody],
    ['release tracks', releaseTracksBody],
    ['playlists', playlistsBody],
    ['batch', batchBody],
    ['release details', releaseDetailsBody],
    ['track metadata', trackMetadataBody],
    ['group', playlistGroupBody],
  ])('%s', (_name, schema) => {
    expect(checkedInPlace(schema)).toBe(true);
  });

  it('a schema with a kind or check it does not decide is left to zod whole', () => {
    expect(checkedInPlace(z.looseObject({ a: z.string(), b: z.array(z.string()).check(() => undefined) }))).toBe(false);
  });
});

describe('in place, the same output as zod', () => {
  it.each(EXAMPLES)('%s', (_name, schema, body) => {
    const expected = schema.parse(clone(body));
    const data = clone(body);
    const got = parseInPlace(schema, data);
    expect(got).toBeDefined();
    expect(got!.value).toBe(data); // the body itself, not a copy
    expect(got!.value).toEqual(expected);
  });

  it("a field's short ways (optional left out, a union's first option in line, an array's members in a loop) give zod's output and refusals", () => {
    const release = (over: Record<string, unknown>) => ({ status: 'ok', items: { releases: [{ id: 1, title: 'R', ...over }], errors: [] } });
    const price = { currencyCode: 'GBP', servicePrice: '7.99', recommendedRetailPrice: 7.99 };
    const pkg = { id: 2, description: 'standard', price, formats: [{ id: 17, description: 'MP3' }, { id: '26', description: 'AAC' }] };
    const fits = [
      release({}), // every optional field left out
      release({ id: '100001', barcode: 602537, year: '2011' }), // each union's later option, with its transform
      release({ download: { releaseDate: 'x', packages: [pkg, { id: '9', price: { sevendigitalPrice: 9.99 } }] } }), // members fixed in the loop
      release({ download: { packages: [] }, artist: { id: '7' }, label: { id: 5 } }),
    ];
    for (const body of fits) {
      const data = clone(body);
      const got = parseInPlace(batchBody, data);
      expect(got).toBeDefined();
      expect(got!.value).toEqual(batchBody.parse(clone(body)));
    }
    const refused = [
      release({ id: 'x1' }), // no option fits
      release({ barcode: null }),
      release({ download: { packages: null } }), // an optional array: null is not left out
      release({ download: { packages: { id: 2 } } }),
      release({ download: { packages: [pkg, { id: 3, formats: [{ id: 1.5 }] }] } }), // a member of a member
      release({ artist: null }),
    ];
    for (const body of refused) {
      const data = clone(body);
      expect(parseInPlace(batchBody, data)).toBeUndefined();
      expect(data).toEqual(body);
      expect(batchBody.safeParse(clone(body)).success).toBe(false);
    }
  });

  it('keeps the order of keys as received', () => {
    const body = { locker: { lockerReleases: { lockerRelease: [{ available: true, release: { title: 'x', id: 1 } }] } } };
    const out: any = parseInPlace(lockerBody, body)!.value;
    expect(JSON.stringify(out)).toBe('{"locker":{"lockerReleases":{"lockerRelease":[{"available":true,"release":{"title":"x","id":1}}]}}}');
  });

  it('an own __proto__ key (JSON.parse makes one) is left to zod, which drops it', () => {
    const body = JSON.parse('{"locker":{"lockerReleases":{"__proto__":{"polluted":true},"lockerRelease":[]}}}');
    expect(parseInPlace(lockerBody, body)).toBeUndefined();
    const out: any = validate(body, lockerBody, 'locker', 200);
    expect(Object.hasOwn(out.locker.lockerReleases, '__proto__')).toBe(false);
    expect(({} as any).polluted).toBeUndefined();
  });

  it('a body zod refuses is left to zod, untouched, even after a transform or default earlier in it', () => {
    const body = lockerPage();
    body.locker.lockerReleases.lockerRelease[0].release.id = '100001'; // a transform before the fault
    delete body.locker.lockerReleases.lockerRelease[1].lockerTracks.lockerTrack[0].downloadUrls; // fine
    body.locker.lockerReleases.lockerRelease[1].lockerTracks.lockerTrack[0].track.duration = '3:20';
    const before = clone(body);
    expect(parseInPlace(lockerBody, body)).toBeUndefined();
    expect(body).toEqual(before);
    expect(lockerBody.safeParse(body).success).toBe(false);
  });

  it('validate() still reports zod\'s first issue when a body does not fit', () => {
    const body = lockerPage();
    body.locker.lockerReleases.page = 2.5;
    expect(() => validate(body, lockerBody, 'locker', 200)).toThrow(ResponseError);
    expect(() => validate(body, lockerBody, 'locker', 200)).toThrow('locker: locker.lockerReleases.page: Invalid input: expected int, received number');
  });
});

/** A deterministic PRNG (mulberry32), so a failure is the same failure on every run. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every [parent, key] of a body, the body's own root left out. */
function slots(v: any, out: [any, string | number][] = []): [any, string | number][] {
  if (v && typeof v === 'object') {
    for (const k of Array.isArray(v) ? v.keys() : Object.keys(v)) {
      out.push([v, k]);
      slots(v[k], out);
    }
  }
  return out;
}

const REPLACEMENTS: ((v: any) => unknown)[] = [
  (v) => (typeof v === 'number' ? String(v) : v),
  (v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v),
  () => null,
  () => 'text',
  () => 1.5,
  () => 7,
  () => true,
  () => ({}),
  () => [],
  () => [{}],
  () => '0042',
];

/** Random damage to `body`: `parse` accepts only what zod accepts, with the same values, and leaves the rest untouched. */
function damageRounds(schema: any, body: any, parse: (data: unknown) => { value: unknown } | undefined): void {
  {
    const random = prng(15);
    let accepted = 0;
    let refused = 0;
    for (let round = 0; round < 150; round++) {
      const damaged = clone(body);
      for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
        const all = slots(damaged);
        if (all.length === 0) break;
        const [parent, key] = all[Math.floor(random() * all.length)];
        if (random() < 0.15 && !Array.isArray(parent)) delete parent[key];
        else parent[key] = REPLACEMENTS[Math.floor(random() * REPLACEMENTS.length)](parent[key]);
      }
      const byZod = schema.safeParse(clone(damaged));
      const data = clone(damaged);
      const got = parse(data);
      if (got) {
        accepted++;
        expect(byZod.success).toBe(true);
        expect(got.value).toEqual(byZod.data);
      } else {
        expect(data).toEqual(damaged);
        if (!byZod.success) refused++;
      }
    }
    // neither side of the comparison is empty
    expect(accepted).toBeGreaterThan(10);
    expect(refused).toBeGreaterThan(10);
  }
}

describe('random damage: in place accepts only what zod accepts, with the same values', () => {
  it.each(EXAMPLES.slice(0, 9))('%s', (_name, schema, body) => damageRounds(schema, body, (data) => parseInPlace(schema, data)));
});

/**
 * The module the build puts in place of precompiled.ts, bundled and loaded as dist/ has it, with
 * the runCheck of its own bundle (its own NO).
 */
function builtCheckers(): { PRECOMPILED: Record<string, Check>; runCheck: typeof runCheckType } {
  const dir = join(import.meta.dirname, '../../../src/client/schemas');
  const contents = `${precompiledSource()}\nexport { runCheck } from './check';\n`;
  const out = buildSync({ stdin: { contents, resolveDir: dir, loader: 'js' }, bundle: true, format: 'cjs', platform: 'node', write: false });
  const mod = { exports: {} as ReturnType<typeof builtCheckers> };
  new Function('module', 'exports', 'require', out.outputFiles[0].text)(mod, mod.exports, createRequire(import.meta.url));
  return mod.exports;
}

describe("the build's checkers (precompiled.ts in dist/): the same verdicts and output as zod, without zod", () => {
  const { PRECOMPILED: built, runCheck } = builtCheckers();
  const nameOf = (schema: unknown) => Object.entries(PRECOMPILE).find(([, s]) => s === schema)?.[0];
  const examples = EXAMPLES.filter(([, schema]) => nameOf(schema) !== undefined);

  it('has a checker for every schema it is given, and only those', () => {
    expect(Object.keys(built).sort()).toEqual(Object.keys(PRECOMPILE).sort());
    expect(examples.length).toBeGreaterThanOrEqual(5);
  });

  it('its module imports zod nowhere: only the checkers\' helpers and the schemas\' own transforms', () => {
    const imports = [...precompiledSource().matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect(imports.sort()).toEqual(['./check', './transforms']);
  });

  it.each(examples)('%s', (_name, schema, body) => {
    const check = built[nameOf(schema)!];
    const data = clone(body);
    const got = runCheck(check, data);
    expect(got).toBeDefined();
    expect(got!.value).toBe(data);
    expect(got!.value).toEqual(schema.parse(clone(body)));
  });

  it.each(examples)('%s, damaged at random', (_name, schema, body) => damageRounds(schema, body, (data) => runCheck(built[nameOf(schema)!], data)));

  it.each([
    ['release-details__api-stub.xml', 'release.releaseDetailsBody'],
    ['artist-releases__page1-pageSize2__api-stub.xml', 'release.artistReleasesBody'],
    ['artist-releases__empty__api-stub.xml', 'release.artistReleasesBody'],
    ['release-tracks__api-stub.xml', 'track.releaseTracksBody'],
  ] as const)('the real service\'s %s', (file, name) => {
    const body = parseApiXml(fixture(file)).body;
    const schema = PRECOMPILE[name];
    const got = runCheck(built[name], clone(body));
    expect(got).toBeDefined();
    expect(got!.value).toEqual(schema.parse(clone(body)));
    damageRounds(schema, body, (data) => runCheck(built[name], data));
  });

  it('a body that does not fit is left to zod, untouched (hostile: an own __proto__, wrong types deep inside)', () => {
    const proto = JSON.parse('{"items":{"__proto__":{"polluted":true},"releases":[]}}');
    expect(runCheck(built['release.batchBody'], proto)).toBeUndefined();
    // zod takes it, without the key
    expect(Object.hasOwn((batchBody.parse(proto) as any).items, '__proto__')).toBe(false);
    for (const text of [
      '{"items":{"releases":[{"id":"12x"}]}}',
      '{"items":{"releases":[{"id":1,"download":{"packages":[{"id":2,"price":{"servicePrice":{}}}]}}]}}',
      '{"items":{"errors":[{"Itemid":"7","code":"E1"}]}}',
      '[]',
      'null',
    ]) {
      const body = JSON.parse(text);
      const before = clone(body);
      expect(runCheck(built['release.batchBody'], body), text).toBeUndefined();
      expect(body).toEqual(before);
      expect(batchBody.safeParse(clone(body)).success, text).toBe(false);
    }
    expect(({} as any).polluted).toBeUndefined();
  });
});
