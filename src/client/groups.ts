// Playlist groups (endpoints 8 and 9): form bodies, signed with the user's token.
import type { ApiClient } from './http';
import { playlistGroupBody, type PlaylistGroupBody } from './schemas/playlist';

export interface GroupQuery {
  country: string;
  userId: string;
}

const path = (id: string) => `/1.2/user/playlists/groups/${encodeURIComponent(id)}`;
const q = (o: GroupQuery) => ({ country: o.country, userId: o.userId });

/** PUT: the group becomes exactly this name and these playlists (created if missing). */
export function replaceGroup(
  c: ApiClient,
  groupId: string,
  body: { name: string; playlistIds?: string[] },
  o: GroupQuery,
): Promise<PlaylistGroupBody> {
  const form: Record<string, string> = { name: body.name };
  if (body.playlistIds && body.playlistIds.length) form.playlistIds = body.playlistIds.join(',');
  return c.request('PUT', path(groupId), { query: q(o), form, auth: 'user', idempotent: true, schema: playlistGroupBody, what: 'playlist group' });
}

/** POST: adds playlists; set semantics on the service make a repeat harmless, so it is retried. */
export function addToGroup(c: ApiClient, groupId: string, body: { playlistIds: string[] }, o: GroupQuery): Promise<PlaylistGroupBody> {
  return c.request('POST', path(groupId), {
    query: q(o),
    form: { playlistIds: body.playlistIds.join(',') },
    auth: 'user',
    idempotent: true,
    schema: playlistGroupBody,
    what: 'playlist group',
  });
}

/** The group as it is. The API has no read of a group: adding no playlists changes nothing and answers with it. */
export function readGroup(c: ApiClient, groupId: string, o: GroupQuery): Promise<PlaylistGroupBody> {
  return addToGroup(c, groupId, { playlistIds: [] }, o);
}
