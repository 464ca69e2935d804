// Isolation: one user's token can neither read nor change another user's locker, playlists or
// groups — through any endpoint, either transport, a mismatched or case-changed userId, a second
// token smuggled into the query, or the media delivery endpoints.
import { describe, expect, it } from 'vitest';
import { useSandbox, otherUserId, type World } from './setup';
import type { Res } from './signer';

const w: World = useSandbox();

/** Refused: 401 (or 403 for media/ambiguous input) and nothing of the victim's in the body. */
function refused(r: Res, secretBits: string[]): void {
  expect([401, 403, 400, 404], `status ${r.status}: ${r.text.slice(0, 200)}`).toContain(r.status);
  for (const s of secretBits) expect(r.text).not.toContain(s);
}

describe('isolation between users', () => {
  // The attacker is the "other" user; the victim is the locker user, who owns the example playlists and group.
  const transports = ['header', 'query'] as const;

  for (const transport of transports) {
    it(`locker (${transport}): the victim's userId, in any spelling, is refused`, async () => {
      const victim = w.sb.info.examples.lockerUser;
      const mine = await w.get('/1.2/user/locker', { country: 'GB' }, { creds: w.other, transport });
      expect(mine.status).toBe(200);
      const victimLocker = await w.get('/1.2/user/locker', { country: 'GB' }, { creds: w.locker, transport });
      const victimTitle: string = victimLocker.body.locker.lockerReleases.lockerRelease[0].release.title;
      for (const name of ['userId', 'userid', 'USERID', 'UserId']) {
        const r = await w.get('/1.2/user/locker', { country: 'GB', [name]: victim }, { creds: w.other, transport });
        refused(r, [victimTitle]);
      }
    });

    it(`playlists (${transport}): list, get, details, replace of the victim's are refused and change nothing`, async () => {
      const victim = w.sb.info.examples.lockerUser;
      const pid = w.sb.info.examples.playlistIds[0];
      const before = await w.get(`/1.2/playlists/${pid}`, { country: 'GB' }, { creds: w.locker });
      expect(before.status).toBe(200);
      const name: string = before.body.playlist.name;
      for (const name2 of ['userId', 'USERID']) {
        refused(await w.get('/1.2/user/playlists', { country: 'GB', [name2]: victim }, { creds: w.other, transport }), [pid]);
      }
      refused(await w.get(`/1.2/playlists/${pid}`, { country: 'GB' }, { creds: w.other, transport }), [name]);
      refused(await w.get(`/1.2/playlists/${pid}`, { country: 'GB', userId: victim }, { creds: w.other, transport }), [name]);
      refused(await w.req('POST', `/1.2/playlists/${pid}/details`, { country: 'GB', userId: victim }, { creds: w.other, transport, json: { name: 'hijacked' } }), [name]);
      refused(await w.req('POST', `/1.2/playlists/${pid}`, { country: 'GB' }, { creds: w.other, transport, json: { name: 'hijacked', tracks: [] } }), [name]);
      const after = await w.get(`/1.2/playlists/${pid}`, { country: 'GB' }, { creds: w.locker });
      expect(after.body.playlist).toEqual(before.body.playlist);
    });

    it(`groups (${transport}): replace and add on the victim's group are refused and change nothing`, async () => {
      const victim = w.sb.info.examples.lockerUser;
      const attacker = otherUserId(w);
      const gid = w.sb.info.examples.groupId;
      const before = await w.req('POST', `/1.2/user/playlists/groups/${gid}`, { country: 'GB', userId: victim }, { creds: w.locker, form: [] });
      expect(before.status).toBe(200);
      for (const userId of [victim, attacker]) {
        refused(await w.req('PUT', `/1.2/user/playlists/groups/${gid}`, { country: 'GB', userId }, { creds: w.other, transport, form: [['name', 'hijacked']] }), [before.body.playlistGroup.name]);
        refused(await w.req('POST', `/1.2/user/playlists/groups/${gid}`, { country: 'GB', userId }, { creds: w.other, transport, form: [['playlistIds', w.sb.info.examples.playlistIds[1]]] }), [before.body.playlistGroup.name]);
      }
      const after = await w.req('POST', `/1.2/user/playlists/groups/${gid}`, { country: 'GB', userId: victim }, { creds: w.locker, form: [] });
      expect(after.body.playlistGroup.name).toBe(before.body.playlistGroup.name);
      expect(after.body.playlistGroup.playlists.map((p: { id: string }) => p.id)).toEqual(before.body.playlistGroup.playlists.map((p: { id: string }) => p.id));
    });
  }

  it('a second userId naming the victim beside my own is refused, not silently resolved', async () => {
    const victim = w.sb.info.examples.lockerUser;
    const me = otherUserId(w);
    const r = await w.get('/1.2/user/locker', { country: 'GB', userId: me, USERID: victim }, { creds: w.other });
    expect(r.status).not.toBe(200);
    const r2 = await w.get('/1.2/user/playlists', { country: 'GB', userid: victim, userId: me }, { creds: w.other });
    expect(r2.status).not.toBe(200);
  });

  it("the victim's token smuggled as a plain query parameter does not make me the victim", async () => {
    const victim = w.sb.info.users.find((u) => u.userId === w.sb.info.examples.lockerUser)!;
    const victimLocker = await w.get('/1.2/user/locker', { country: 'GB' }, { creds: w.locker });
    const victimTitle: string = victimLocker.body.locker.lockerReleases.lockerRelease[0].release.title;
    for (const name of ['OAUTH_TOKEN', 'Oauth_Token', 'token']) {
      const r = await w.get('/1.2/user/locker', { country: 'GB', [name]: victim.token }, { creds: w.other });
      if (r.status === 200) {
        // served as the attacker's own locker, never the victim's
        const titles = r.body.locker.lockerReleases.lockerRelease.map((x: { release: { title: string } }) => x.release.title);
        const own = await w.get('/1.2/user/locker', { country: 'GB' }, { creds: w.other });
        expect(titles).toEqual(own.body.locker.lockerReleases.lockerRelease.map((x: { release: { title: string } }) => x.release.title));
      } else refused(r, [victimTitle]);
    }
  });

  it("media: the victim's tracks cannot be downloaded or streamed with my token, and their counter does not move", async () => {
    const victimLocker = await w.get('/1.2/user/locker', { country: 'GB', pageSize: 50 }, { creds: w.locker });
    const entry = victimLocker.body.locker.lockerReleases.lockerRelease.find((r: { available: boolean }) => r.available);
    const track = entry.lockerTracks.lockerTrack.find((t: { remainingDownloads: number }) => t.remainingDownloads > 0);
    const url = new URL(track.downloadUrls.downloadUrl[0].url);
    const dl = await w.get(url.pathname, Object.fromEntries(url.searchParams), { creds: w.other });
    expect(dl.status).toBeGreaterThanOrEqual(400);
    const st = await w.get(`/media/stream/${track.track.id}`, {}, { creds: w.other });
    expect(st.status).toBeGreaterThanOrEqual(400);
    const again = await w.get('/1.2/user/locker', { country: 'GB', pageSize: 50 }, { creds: w.locker });
    const same = again.body.locker.lockerReleases.lockerRelease
      .flatMap((r: { lockerTracks: { lockerTrack: unknown[] } }) => r.lockerTracks.lockerTrack)
      .find((t: { track: { id: number } }) => t.track.id === track.track.id);
    expect(same.remainingDownloads).toBe(track.remainingDownloads);
  });

  it('without a token, nothing user-specific is served', async () => {
    const victim = w.sb.info.examples.lockerUser;
    refused(await w.get('/1.2/user/locker', { country: 'GB', userId: victim }, { creds: w.app }), []);
    refused(await w.get('/1.2/user/playlists', { country: 'GB', userId: victim }, { creds: w.app }), []);
    refused(await w.get(`/1.2/playlists/${w.sb.info.examples.playlistIds[0]}`, { country: 'GB', userId: victim }, { creds: w.app }), []);
  });
});
