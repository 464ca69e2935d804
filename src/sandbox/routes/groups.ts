// Playlist groups: replace (8, PUT creates), add (9, set semantics), and get (extension).
// Fields `name` and `playlistIds` (comma-separated or repeated), in a form or a JSON body.
import { ACCESS_DENIED, OAuthFailure } from '../auth';
import { ApiFail, authenticate, bodyFields, country, enveloped, formValues, isForm, userOf, type Ctx } from '../http';
import { groupBytes, nowIso, type GroupRow } from '../store';
import { checkGroupSize, checkNewItem, checkStorage } from './quota';
import { links, summaryJson } from './playlists';

const ID_RE = /^[0-9a-f]{24}$/;

/** The values of a group field: every form value, or a JSON string or array of strings. */
function values(ctx: Ctx, name: string): string[] {
  if (isForm(ctx)) return formValues(ctx, name);
  const v = bodyFields(ctx, [])[name];
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v;
  throw new ApiFail(1002, `Invalid value for ${name}: a string or an array of strings is required`);
}

/** The group name: a string (the spec's type), the first value of a form's; a JSON array or number is 1002. */
function nameOf(ctx: Ctx): string | undefined {
  if (isForm(ctx)) return formValues(ctx, 'name')[0];
  const v = bodyFields(ctx, []).name;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new ApiFail(1002, 'Invalid value for name: a string is required');
  return v;
}

function idsOf(ctx: Ctx): string[] {
  const out: string[] = [];
  for (const v of values(ctx, 'playlistIds')) {
    for (const part of v.split(',')) {
      const id = part.trim();
      if (id && !out.includes(id)) out.push(id);
    }
  }
  return out;
}

export function groupJson(ctx: Ctx, g: GroupRow) {
  const found = ctx.store.playlistsByIds(g.playlistIds);
  const playlists = g.playlistIds.map((id) => {
    const p = found.get(id);
    // a playlist that does not exist (or is not the group owner's) shows as its id alone
    if (!p || p.owner !== g.owner) return { id };
    const { links: _l, ...rest } = summaryJson(ctx, p);
    const l = links(ctx.base, p.id);
    return {
      id: rest.id,
      name: rest.name,
      _links: { self: { href: l.self }, details: { href: l.details }, tracks: { href: l.tracks } },
      trackCount: rest.trackCount,
      tags: rest.tags,
      status: rest.status,
      visibility: rest.visibility,
      annotations: rest.annotations,
      image: rest.image,
      lastUpdated: rest.lastUpdated,
    };
  });
  return enveloped({
    playlistGroup: {
      id: g.id,
      name: g.name,
      playlistCount: playlists.filter((p) => 'name' in p).length,
      lastUpdated: g.lastUpdated,
      _links: { self: { href: `${ctx.base}/1.2/user/playlists/groups/${g.id}` } },
      playlists,
    },
  });
}

function prelude(ctx: Ctx, id: string) {
  const auth = authenticate(ctx, { user: true });
  const user = userOf(ctx, auth, { userIdRequired: true });
  country(ctx, auth);
  if (!ID_RE.test(id)) throw new ApiFail(1002, 'Invalid value for playlistGroupId: 24 lowercase hexadecimal characters are required');
  return user;
}

export function replaceGroup(ctx: Ctx, id: string) {
  const user = prelude(ctx, id);
  const name = nameOf(ctx);
  if (name === undefined || name.trim() === '') throw new ApiFail(1001, 'Missing required parameter name');
  const ids = idsOf(ctx);
  checkGroupSize(ctx, ids.length);
  const g = ctx.store.write(() => {
    const existing = ctx.store.getGroup(id);
    if (existing && existing.owner !== user.userId) throw new OAuthFailure(ACCESS_DENIED);
    if (!existing) checkNewItem(ctx, user.userId, 'group');
    const row: GroupRow = { id, owner: user.userId, name, playlistIds: ids, lastUpdated: nowIso() };
    checkStorage(ctx, user.userId, groupBytes(row) - (existing ? groupBytes(existing) : 0));
    ctx.store.saveGroup(row);
    return row;
  });
  return groupJson(ctx, g);
}

export function addToGroup(ctx: Ctx, id: string) {
  const user = prelude(ctx, id);
  const ids = idsOf(ctx);
  const g = ctx.store.write(() => {
    const row = ctx.store.getGroup(id);
    if (!row) throw new ApiFail(2001, 'Playlist group not found');
    if (row.owner !== user.userId) throw new OAuthFailure(ACCESS_DENIED);
    const fresh = ids.filter((x) => !row.playlistIds.includes(x));
    if (fresh.length) {
      checkGroupSize(ctx, row.playlistIds.length + fresh.length);
      const before = groupBytes(row);
      row.playlistIds.push(...fresh);
      row.lastUpdated = nowIso();
      checkStorage(ctx, user.userId, groupBytes(row) - before);
      ctx.store.saveGroup(row);
    }
    return row;
  });
  return groupJson(ctx, g);
}

export function getGroup(ctx: Ctx, id: string) {
  const user = prelude(ctx, id);
  const row = ctx.store.getGroup(id);
  if (!row) throw new ApiFail(2001, 'Playlist group not found');
  if (row.owner !== user.userId) throw new OAuthFailure(ACCESS_DENIED);
  return groupJson(ctx, row);
}
