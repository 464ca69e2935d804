// The real service's official Node client (npm 7digital-api 1.0.0) against the sandbox, for every
// endpoint it can express: its own methods (release tracks, artist releases, the locker, request
// signing for media) and the others declared through its configure(options, schema) mechanism,
// in JSON and in XML, signed in the Authorization header (its calls) and in the query (its
// OAuth.sign). The two adjustments a local plain-HTTP port forces are in ../helpers/official-client.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promisify } from 'node:util';
import { adjustForLocalPort, officialClient, type OfficialClient } from '../helpers/official-client';
import { useSandbox } from './setup';

const w = useSandbox();
let undo: () => void;
beforeAll(() => {
  const u = new URL(w.sb.baseUrl);
  undo = adjustForLocalPort(u.hostname, Number(u.port));
});
afterAll(() => undo?.());

 
const asArray = (v: any) => (Array.isArray(v) ? v : v === undefined ? [] : [v]);

for (const format of ['json', 'xml'] as const) {
  describe(`the official client, ${format}`, () => {
    let c: OfficialClient;
    let user: Record<string, string>;
    const ex = () => w.sb.info.examples;
    beforeAll(() => {
      c = officialClient(w.sb.baseUrl, { key: w.multi.key, secret: w.multi.secret }, format);
      user = { accesstoken: w.locker.token!, accesssecret: w.locker.tokenSecret!, country: 'GB' };
    });

    it('its own methods: release tracks and artist releases (unsigned), the locker (3-legged)', async () => {
      const tracks = await c.call('Releases', 'getTracks', { releaseid: ex().releaseIds[0], country: 'GB' });
      expect(tracks.status).toBe('ok');
      const list = format === 'json' ? tracks.tracks.tracks : tracks.tracks.track;
      expect(asArray(list).length).toBeGreaterThan(0);
      expect(String(asArray(list)[0].release.id)).toBe(String(ex().releaseIds[0]));

      const releases = await c.call('Artists', 'getReleases', { artistid: ex().artistWithManyReleases, country: 'GB', usageTypes: 'download', pageSize: 3 });
      expect(releases.status).toBe('ok');
      expect(asArray(format === 'json' ? releases.releases.releases : releases.releases.release)).toHaveLength(3);

      const locker = await c.call('User', 'getLocker', { ...user, pageSize: 2 });
      expect(locker.status).toBe('ok');
      expect(locker.locker.lockerReleases.lockerRelease).toHaveLength(2);
      expect(Number(locker.locker.lockerReleases.totalItems)).toBeGreaterThan(2);
    });

    it('declared: release details in batch (unsigned and 2-legged) and enhanced track metadata', async () => {
      for (const m of ['getDetailsBatch', 'getDetailsBatchSigned']) {
        const b = await c.call('ReleaseBatch', m, { releaseIds: ex().releaseIds.slice(0, 2).join(','), country: 'GB', usageTypes: 'download' });
        expect(b.status, m).toBe('ok');
        const rel = format === 'json' ? b.items.releases : b.items.releases.release;
        expect(asArray(rel).map((r: any) => String(r.id))).toEqual(ex().releaseIds.slice(0, 2).map(String));
      }
      const e = await c.call('Enhanced', 'getEnhanced', { trackId: ex().trackIds[0], country: 'GB' });
      expect(e.status).toBe('ok');
      expect(String(e.track.id)).toBe(String(ex().trackIds[0]));
    });

    it('declared: playlists create, get, details, replace and the list (3-legged, form bodies)', async () => {
      const created = await c.call('Playlists', 'create', { ...user, name: `Official ${format}`, status: 'published', visibility: 'public', description: 'made by the official client' });
      expect(created.status).toBe('ok');
      const id = created.playlist.id;
      expect(id).toMatch(/^[0-9a-f]{24}$/);
      expect(created.playlist).toMatchObject({ name: `Official ${format}`, status: 'Published', visibility: 'Public' });
      expect(created.location).toBe(`${w.sb.baseUrl}/1.2/playlists/${id}`);

      const got = await c.call('Playlists', 'get', { ...user, playlistId: id });
      expect(got.playlist.name).toBe(`Official ${format}`);

      const details = await c.call('Playlists', 'updateDetails', { ...user, playlistId: id, name: 'Renamed officially', imageUrl: 'https://img.example/o.jpg' });
      expect(details.playlist).toMatchObject({ name: 'Renamed officially', image: 'https://img.example/o.jpg', status: 'Published' });

      const replaced = await c.call('Playlists', 'replace', { ...user, playlistId: id, name: 'Replaced officially', status: 'draft' });
      expect(replaced.playlist).toMatchObject({ name: 'Replaced officially', status: 'Draft' });

      const list = await c.call('UserPlaylists', 'getPlaylists', { ...user, userId: ex().lockerUser, pageSize: 500 });
      expect(list.status).toBe('ok');
      expect(asArray(list.playlists.playlist).map((p: any) => p.id)).toContain(id);

      // a track list is shown field by field as the real service shows it
      const seeded = await c.call('Playlists', 'get', { ...user, playlistId: ex().playlistIds[0] });
      const t = asArray(format === 'json' ? seeded.playlist.tracks : seeded.playlist.tracks.track)[0];
      expect(t).toMatchObject({ source: '7digital', user: `id:${ex().lockerUser}` });
      expect(String(t.artistId)).toMatch(/^\d+$/);
    });

    it('declared: playlist groups replace (PUT), add (POST) and get', async () => {
      const gid = (format === 'json' ? 'd' : 'e').repeat(24);
      const [p1, p2] = ex().playlistIds;
      const params = { ...user, groupId: gid, userId: ex().lockerUser };
      const put = await c.call('UserPlaylists', 'replaceGroup', { ...params, name: 'Official group', playlistIds: p1 });
      expect(put.status).toBe('ok');
      expect(put.playlistGroup).toMatchObject({ id: gid, name: 'Official group' });
      const add = await c.call('UserPlaylists', 'addToGroup', { ...params, playlistIds: `${p1},${p2}` });
      expect(Number(add.playlistGroup.playlistCount)).toBe(2);
      const got = await c.call('UserPlaylists', 'getGroup', params);
      const ids = asArray(format === 'json' ? got.playlistGroup.playlists : got.playlistGroup.playlists.playlist).map((p: any) => p.id);
      expect(ids).toEqual([p1, p2]);
    });

    it('refusals come back as the client’s own errors: a wrong secret, no token, an API error', async () => {
      const wrong = officialClient(w.sb.baseUrl, { key: w.multi.key, secret: 'not-the-secret' }, format);
      await expect(wrong.call('User', 'getLocker', user)).rejects.toMatchObject({ name: 'OAuthError', message: expect.stringMatching(/invalid signature/) });
      await expect(c.call('User', 'getLocker', { country: 'GB' })).rejects.toMatchObject({ name: 'OAuthError', message: expect.stringMatching(/Not authorised - no user credentials provided/) });
      await expect(c.call('Playlists', 'get', { ...user, playlistId: 'f'.repeat(24) })).rejects.toMatchObject({ name: 'ApiError', code: format === 'json' ? 2001 : '2001' });
    });

    it('query signing (its OAuth.sign): the locker, a playlist and a media stream', async () => {
      const oauth = new c.api.OAuth();
      const sign = (path: string, params: Record<string, string>) => oauth.sign(`${w.sb.baseUrl}${path}`, { ...params, accesstoken: user.accesstoken, accesssecret: user.accesssecret });
      const accept = format === 'xml' ? 'application/xml' : 'application/json';
      for (const [path, params] of [
        ['/1.2/user/locker', { country: 'GB', pageSize: '1' }],
        [`/1.2/playlists/${ex().playlistIds[0]}`, { country: 'GB' }],
      ] as const) {
        const url = sign(path, { ...params });
        expect(url).toMatch(/oauth_signature=/);
        const r = await fetch(url, { headers: { accept } });
        expect(r.status, `${path}: ${await r.clone().text()}`).toBe(200);
        expect(r.headers.get('content-type')).toContain(format);
      }
      const media = await fetch(sign(`/media/stream/${ex().trackIds[0]}`, {}));
      expect(media.status).toBe(200);
      expect(media.headers.get('content-type')).toBe('audio/mpeg');
    });
  });
}

it('the client without the adjustments cannot reach a plain-HTTP port (so they are needed, and only they)', async () => {
  undo();
  try {
    const c = officialClient(w.sb.baseUrl, { key: w.multi.key, secret: w.multi.secret }, 'json');
    await expect(c.call('User', 'getLocker', { accesstoken: w.locker.token, accesssecret: w.locker.tokenSecret, country: 'GB' })).rejects.toThrow();
    await expect(promisify(setImmediate)()).resolves.toBeUndefined();
  } finally {
    const u = new URL(w.sb.baseUrl);
    undo = adjustForLocalPort(u.hostname, Number(u.port));
  }
});
