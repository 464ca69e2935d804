// The bounds of src/sandbox/limits.ts as the playlist and group routes apply them: checked inside
// the write transaction, so two concurrent writers cannot both pass a bound the pair exceeds.
import { tooLarge, type Ctx } from '../http';

export function checkTrackCount(ctx: Ctx, n: number): void {
  const max = ctx.limits.tracksPerPlaylist;
  if (n > max) throw tooLarge(`Too many tracks: a playlist holds at most ${max}, this one would hold ${n}`);
}

export function checkGroupSize(ctx: Ctx, n: number): void {
  const max = ctx.limits.playlistsPerGroup;
  if (n > max) throw tooLarge(`Too many playlists in the group: a group holds at most ${max}, this one would hold ${n}`);
}

/** What a user owns: a new playlist or group past the count bound is refused. Must run inside store.write(). */
export function checkNewItem(ctx: Ctx, owner: string, kind: 'playlist' | 'group'): void {
  const u = ctx.store.usage(owner);
  const [have, max] = kind === 'playlist' ? [u.playlists, ctx.limits.playlistsPerUser] : [u.groups, ctx.limits.groupsPerUser];
  if (have >= max) throw tooLarge(`Too many ${kind}s: a user owns at most ${max}`);
}

/** A change that adds `delta` bytes to what the user stores. Must run inside store.write() or store.request(). */
export function checkStorage(ctx: Ctx, owner: string, delta: number): void {
  if (delta <= 0) return;
  const max = ctx.limits.storedBytesPerUser;
  const { bytes } = ctx.store.usage(owner);
  if (bytes + delta > max) throw tooLarge(`Storage limit reached: a user stores at most ${max} bytes of playlists and groups (${bytes} stored, this change adds ${delta})`);
}
