// Playlist groups (endpoints 8 and 9): form bodies, signed with the user's token.
import type { ApiClient } from './http';
import { enveloped, validate } from './interpret';
import { playlistGroupBody, type PlaylistGroupBody } from './schemas/playlist';
import { callJson, type Call } from './call';

export interface GroupQuery {
  country: string;
  userId: string;
}

const path = (id: string) => `/1.2/user/playlists/groups/${encodeURIComponent(id)}`;
const q = (o: GroupQuery) => ({ country: o.country, userId: o.userId });

// The calls carry no schema: a group may come bare, which readGroupBody reads as enveloped first.

/** PUT: the group becomes exactly this name and these playlists (created if missing). */
export function replaceGroupCall(groupId: string, body: { name: string; playlistIds?: string[] }, o: GroupQuery): Call {
  const form: Record<string, string> = { name: body.name };
  if (body.playlistIds && body.playlistIds.length) form.playlistIds = body.playlistIds.join(',');
  return { method: 'PUT', path: path(groupId), opts: { query: q(o), form, auth: 'user', idempotent: true, what: 'playlist group' } };
}

export async function replaceGroup(c: ApiClient, groupId: string, body: { name: string; playlistIds?: string[] }, o: GroupQuery): Promise<PlaylistGroupBody> {
  return readGroupBody(await callJson(c, replaceGroupCall(groupId, body, o)));
}

/** POST: adds playlists; set semantics on the service make a repeat harmless, so it is retried. */
export function addToGroupCall(groupId: string, body: { playlistIds: string[] }, o: GroupQuery): Call {
  return {
    method: 'POST',
    path: path(groupId),
    opts: { query: q(o), form: { playlistIds: body.playlistIds.join(',') }, auth: 'user', idempotent: true, what: 'playlist group' },
  };
}

export async function addToGroup(c: ApiClient, groupId: string, body: { playlistIds: string[] }, o: GroupQuery): Promise<PlaylistGroupBody> {
  return readGroupBody(await callJson(c, addToGroupCall(groupId, body, o)));
}

/** The group as it is. The API has no read of a group: adding no playlists changes nothing and answers with it. */
export function readGroupCall(groupId: string, o: GroupQuery): Call {
  return addToGroupCall(groupId, { playlistIds: [] }, o);
}

export async function readGroup(c: ApiClient, groupId: string, o: GroupQuery): Promise<PlaylistGroupBody> {
  return readGroupBody(await callJson(c, readGroupCall(groupId, o)));
}

/** A group call's answer, enveloped or bare, as the enveloped body; a ResponseError names what does not fit. */
export function readGroupBody(data: unknown): PlaylistGroupBody {
  return validate(enveloped(data, 'playlistGroup'), playlistGroupBody, 'playlist group') as PlaylistGroupBody;
}
