// The response schemas (zod/mini) pinned directly: what each accepts, what it turns values into,
// what passes through, and the English message the first issue carries into a ResponseError.
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { catalogueId, price, stringId } from '../../../src/client/schemas/common';
import { lockerBody } from '../../../src/client/schemas/locker';
import { playlist, playlistGroupBody, playlistsBody } from '../../../src/client/schemas/playlist';
import { artistReleasesBody, batchBody, batchError, release } from '../../../src/client/schemas/release';
import { releaseTracksBody, track, trackMetadataBody } from '../../../src/client/schemas/track';

const repoRoot = path.resolve(__dirname, '../../..');

/** The first issue as http.ts reports it: path joined with dots, and its message. */
function firstIssue(r: { success: boolean; error?: { issues: readonly { path: PropertyKey[]; message: string }[] } }) {
  expect(r.success).toBe(false);
  const issue = r.error!.issues[0];
  return { path: issue.path.join('.'), message: issue.message };
}

describe('ids', () => {
  it('a catalogue id given as a numeric string becomes that number; an integer stays as it is', () => {
    expect(catalogueId.parse('799025')).toBe(799025);
    expect(catalogueId.parse(799025)).toBe(799025);
    expect(release.parse({ id: '12' })).toEqual({ id: 12 });
    expect(track.parse({ id: '0042', release: { id: '7' } })).toEqual({ id: 42, release: { id: 7 } });
  });

  it('a catalogue id that is not an integer nor a string of digits is rejected', () => {
    for (const bad of ['12a', '', '-1', '1.5', ' 1', null, true, {}]) expect(catalogueId.safeParse(bad).success).toBe(false);
  });

  it('a playlist or group id given as a number becomes its decimal string', () => {
    expect(stringId.parse(12345)).toBe('12345');
    expect(stringId.parse('51ed5cfec9021614f462bb7b')).toBe('51ed5cfec9021614f462bb7b');
    const p = playlist.parse({ id: 987, tracks: [{ id: 3, trackId: 55 }, { trackId: '56' }] });
    expect(p).toEqual({ id: '987', tracks: [{ id: '3', trackId: 55 }, { trackId: '56' }] });
    expect(playlistGroupBody.parse({ playlistGroup: { id: 7, playlists: [{ id: 8 }] } })).toEqual({
      playlistGroup: { id: '7', playlists: [{ id: '8' }] },
    });
  });

  it('a numeric barcode becomes its string; a string barcode is kept', () => {
    expect(release.parse({ id: 1, barcode: 5060147126106 }).barcode).toBe('5060147126106');
    expect(release.parse({ id: 1, barcode: '00602537' }).barcode).toBe('00602537');
  });
});

describe('prices', () => {
  it('sevendigitalPrice is read as servicePrice, and the old name is dropped', () => {
    expect(price.parse({ currencyCode: 'GBP', sevendigitalPrice: 0.79, recommendedRetailPrice: '0.99' })).toEqual({
      currencyCode: 'GBP',
      servicePrice: 0.79,
      recommendedRetailPrice: '0.99',
    });
  });

  it('a servicePrice already present wins over sevendigitalPrice', () => {
    expect(price.parse({ servicePrice: '1.00', sevendigitalPrice: '2.00' })).toEqual({ servicePrice: '1.00' });
  });

  it('the mapping also applies to a package price inside a release', () => {
    const r = release.parse({ id: 1, download: { packages: [{ id: '2', price: { sevendigitalPrice: null } }] } });
    expect(r.download?.packages?.[0]).toEqual({ id: 2, price: { servicePrice: null } });
  });
});

describe('batch errors', () => {
  it('Itemid (the real spelling) is read as itemId, and a numeric-string code as a number', () => {
    expect(batchError.parse({ Itemid: '123', code: '2001', errorMessage: 'Release not found' })).toEqual({
      Itemid: '123',
      itemId: 123,
      code: 2001,
      errorMessage: 'Release not found',
    });
  });

  it('ItemId, itemid and id are aliases too, in that order; an itemId present wins', () => {
    expect(batchError.parse({ ItemId: 5 }).itemId).toBe(5);
    expect(batchError.parse({ itemid: '6' }).itemId).toBe(6);
    expect(batchError.parse({ id: 7 }).itemId).toBe(7);
    expect(batchError.parse({ Itemid: 1, ItemId: 2, itemid: 3, id: 4 }).itemId).toBe(1);
    expect(batchError.parse({ ItemId: 2, itemid: 3, id: 4 }).itemId).toBe(2);
    expect(batchError.parse({ itemid: 3, id: 4 }).itemId).toBe(3);
    expect(batchError.parse({ itemId: 10, Itemid: 11 }).itemId).toBe(10);
  });

  it('an error with no id at all is rejected at itemId', () => {
    expect(firstIssue(batchError.safeParse({ code: 2001 }))).toEqual({
      path: 'itemId',
      message: 'Invalid input',
    });
  });

  it('in a batch body, errors are read through the aliases', () => {
    const b = batchBody.parse({ status: 'ok', items: { releases: [{ id: '1' }], errors: [{ Itemid: '2', code: 2001 }] } });
    expect(b).toEqual({ status: 'ok', items: { releases: [{ id: 1 }], errors: [{ Itemid: '2', itemId: 2, code: 2001 }] } });
  });
});

describe('loose objects', () => {
  it('unknown fields pass through untouched, at every level', () => {
    const extra = { deep: [1, { x: 'y' }], n: null };
    const body = {
      status: 'ok',
      extraTop: 'kept',
      release: undefined,
      releases: { page: 1, extraPaging: true, releases: [{ id: 1, extraRelease: extra, artist: { id: 2, extraArtist: 'a' } }] },
    };
    const out = artistReleasesBody.parse(body);
    expect(out).toEqual(body);
    expect(out.releases.releases[0].extraRelease).toEqual({ deep: [1, { x: 'y' }], n: null });
    expect((out as Record<string, unknown>).extraTop).toBe('kept');
  });

  it('annotations and tagstrengths accept any record; nullable fields accept null', () => {
    expect(playlist.parse({ id: 'a', annotations: { k: 1, j: [true] }, tags: null, description: null, lastUpdated: null })).toEqual({
      id: 'a',
      annotations: { k: 1, j: [true] },
      tags: null,
      description: null,
      lastUpdated: null,
    });
    const t = trackMetadataBody.parse({ track: { id: 1, tagstrengths: null, bpm: null, embeddings: [0.5, 1] } });
    expect(t.track).toEqual({ id: 1, tagstrengths: null, bpm: null, embeddings: [0.5, 1] });
  });
});

describe('defaults', () => {
  it('missing arrays default to []', () => {
    expect(batchBody.parse({ items: {} })).toEqual({ items: { releases: [], errors: [] } });
    expect(artistReleasesBody.parse({ releases: { page: 1 } })).toEqual({ releases: { page: 1, releases: [] } });
    expect(releaseTracksBody.parse({ tracks: {} })).toEqual({ tracks: { tracks: [] } });
    expect(playlistsBody.parse({ playlists: {} })).toEqual({ playlists: { playlist: [] } });
    expect(lockerBody.parse({ locker: { lockerReleases: {} } })).toEqual({ locker: { lockerReleases: { lockerRelease: [] } } });
  });

  it('locker tracks and download URLs default to [] where their parent is present, and stay absent or null otherwise', () => {
    const out = lockerBody.parse({
      locker: {
        lockerReleases: {
          lockerRelease: [
            { release: { id: 1 }, lockerTracks: { lockerTrack: [{ track: { id: 2 }, downloadUrls: {} }, { track: { id: 3 }, downloadUrls: null }] } },
            { release: { id: 4 }, lockerTracks: {} },
            { release: { id: 5 } },
          ],
        },
      },
    });
    const [a, b, c] = out.locker.lockerReleases.lockerRelease;
    expect(a.lockerTracks?.lockerTrack).toEqual([
      { track: { id: 2 }, downloadUrls: { downloadUrl: [] } },
      { track: { id: 3 }, downloadUrls: null },
    ]);
    expect(b.lockerTracks).toEqual({ lockerTrack: [] });
    expect(c).toEqual({ release: { id: 5 } });
  });

  it('each default is a fresh array', () => {
    const one = batchBody.parse({ items: {} });
    one.items.releases.push({ id: 1 });
    expect(batchBody.parse({ items: {} }).items.releases).toEqual([]);
  });
});

describe('rejections carry readable English messages', () => {
  it('a non-integer where an integer is due is rejected, naming the expected type', () => {
    expect(firstIssue(lockerBody.safeParse({ locker: { lockerReleases: { page: 2.5 } } }))).toEqual({
      path: 'locker.lockerReleases.page',
      message: 'Invalid input: expected int, received number',
    });
    expect(firstIssue(track.safeParse({ id: 1, trackNumber: 3.5 }))).toEqual({
      path: 'trackNumber',
      message: 'Invalid input: expected int, received number',
    });
  });

  it('a non-integer catalogue id fails both forms of the id: "Invalid input", each form named inside', () => {
    const r = release.safeParse({ id: 1.5 });
    expect(firstIssue(r)).toEqual({ path: 'id', message: 'Invalid input' });
    const issue = r.error!.issues[0] as { code: string; errors: { message: string }[][] };
    expect(issue.code).toBe('invalid_union');
    expect(issue.errors.map((e) => e.map((i) => i.message))).toEqual([
      ['Invalid input: expected int, received number'],
      ['Invalid input: expected string, received number'],
    ]);
  });

  it('a wrong type names what was expected and what came', () => {
    expect(firstIssue(track.safeParse({ id: 1, duration: '180' }))).toEqual({
      path: 'duration',
      message: 'Invalid input: expected number, received string',
    });
    expect(firstIssue(playlist.safeParse({ id: 'a', name: 5 }))).toEqual({
      path: 'name',
      message: 'Invalid input: expected string, received number',
    });
    expect(firstIssue(batchBody.safeParse({ status: 'ok' }))).toEqual({
      path: 'items',
      message: 'Invalid input: expected object, received undefined',
    });
  });

  it('an integer beyond the safe range is too big', () => {
    expect(firstIssue(track.safeParse({ id: 1, trackNumber: 2 ** 53 }))).toEqual({
      path: 'trackNumber',
      message: 'Too big: expected int to be <=9007199254740991',
    });
  });

  it('the schemas load the English messages themselves (zod/mini sets no locale of its own)', async () => {
    const core = await import('zod/v4/core');
    core.config({ localeError: undefined });
    vi.resetModules();
    const fresh = await import('../../../src/client/schemas/track');
    expect(firstIssue(fresh.track.safeParse({ id: 1, duration: '180' })).message).toBe(
      'Invalid input: expected number, received string',
    );
  });
});

describe('bundle', () => {
  it('the schemas bundle zod/mini and the English locale only: no classic API, no other locale', async () => {
    const esbuild = await import('esbuild');
    const r = await esbuild.build({
      entryPoints: ['track', 'locker', 'playlist', 'release'].map((f) => path.join(repoRoot, 'src/client/schemas', f + '.ts')),
      bundle: true,
      write: false,
      outdir: path.join(repoRoot, 'tmp-unused'),
      format: 'esm',
      platform: 'node',
      metafile: true,
      logLevel: 'silent',
    });
    // modules with code in an output (metafile.inputs also lists files read and then shaken out)
    const kept = new Set<string>();
    for (const out of Object.values(r.metafile.outputs))
      for (const [k, v] of Object.entries(out.inputs)) if (v.bytesInOutput > 0) kept.add(k);
    const inputs = [...kept].filter((k) => k.includes('node_modules/zod/'));
    expect(inputs.some((k) => k.includes('/v4/mini/'))).toBe(true);
    expect(inputs.filter((k) => k.includes('/classic/'))).toEqual([]);
    expect(inputs.filter((k) => k.includes('/locales/')).map((k) => path.basename(k))).toEqual(['en.js']);
    for (const f of r.outputFiles) expect(f.contents.length).toBeLessThan(150_000);
  });
});
