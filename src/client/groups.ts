// Playlist groups (endpoints 8 and 9): form bodies, signed with the user's token.
import type { ApiClient } from './http';
import { playlistGroupBody, type PlaylistGroupBody } from './schemas/playlist';
import { callJson, type Call } from './call';

export interface GroupQuery {
  country: string;
  userId: string;
}

const path = (id: string) => `/1.2/user/playlists/groups/${encodeURIComponent(id)}`;
const q = (o: GroupQuery) => ({ country: o.country, userId: o.userId });

/** PUT: the group becomes exactly this name and these playlists (created if missing). */
export function replaceGroupCall(groupId: string, body: { name: string; playlistIds?: string[] }, o: GroupQuery): Call {
  const form: Record<string, string> = { name: body.name };
  if (body.playlistIds && body.playlistIds.length) form.playlistIds = body.playlistIds.join(',');
  return { method: 'PUT', path: path(groupId), opts: { query: q(o), form, auth: 'user', idempotent: true, schema: playlistGroupBody, what: 'playlist group' } };
}

export function replaceGroup(c: ApiClient, groupId: string, body: { name: string; playlistIds?: string[] }, o: GroupQuery): Promise<PlaylistGroupBody> {
  return callJson(c, replaceGroupCall(groupId, body, o));
}

/** POST: adds playlists; set semantics on the service make a repeat harmless, so it is retried. */
export function addToGroupCall(groupId: string, body: { playlistIds: string[] }, o: GroupQuery): Call {
  return {
    method: 'POST',
    path: path(groupId),
    opts: { query: q(o), form: { playlistIds: body.playlistIds.join(',') }, auth: 'user', idempotent: true, schema: playlistGroupBody, what: 'playlist group' },
  };
}

export function addToGroup(c: ApiClient, groupId: string, body: { playlistIds: string[] }, o: GroupQuery): Promise<PlaylistGroupBody> {
  return callJson(c, addToGroupCall(groupId, body, o));
}

/** The group as it is. The API has no read of a group: adding no playlists changes nothing and answers with it. */
export function readGroupCall(groupId: string, o: GroupQuery): Call {
  return addToGroupCall(groupId, { playlistIds: [] }, o);
}

export function readGroup(c: ApiClient, groupId: string, o: GroupQuery): Promise<PlaylistGroupBody> {
  return callJson(c, readGroupCall(groupId, o));
}
