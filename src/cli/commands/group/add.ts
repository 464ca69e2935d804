// `mcat group add ID --playlist IDS`: playlists added to a group (set semantics).
import { UsageError } from '../../errors';
import { defineCommand, type CommandContext } from '../../command';
import { outputFormat } from '../../context';
import { checkStdinUse, userFlag, userSession } from '../../user-token';
import { GROUP_ID, PLAYLIST_IDS, WHOSE, groupQuery, playlistIds, sendAndPrint, type GroupFlags } from './shared';

export default defineCommand<GroupFlags>({
  name: 'add',
  description: 'add playlists to a group (a playlist already there stays there once)',
  arguments: [GROUP_ID],
  options: [{ flags: '--playlist <ids...>', description: PLAYLIST_IDS, required: true, complete: '@playlist' }, ...WHOSE],
  examples: ['mcat group add ca4cda5a7a2888a359ea1de8 --playlist ad0ed2b4b45b8d81945103f4 37fa8e8a9b70d252ee2b7e77'],
  json: async () => (await import('../../views/playlists')).groupView,
  run: runGroupAdd,
});

async function runGroupAdd(flags: GroupFlags, ctx: CommandContext): Promise<void> {
  // the input module brings zod: loaded when the command runs, not for its help
  const { checkPlaylistId } = await import('../playlist/input');
  const id = checkPlaylistId(flags.groupId, 'group');
  const user = userFlag(flags.user);
  checkStdinUse(flags, { '--playlist -': flags.playlist?.includes('-') ? '-' : undefined });
  const ids = await playlistIds(flags.playlist);
  if (ids.length === 0) throw new UsageError('--playlist needs at least one playlist id', "to see the group, use 'mcat group show'");
  outputFormat(ctx);
  const s = await userSession(ctx, { ...flags, user });
  const q = groupQuery(s, user);
  const { addToGroupCall } = await import('../../../client/groups');
  await sendAndPrint(ctx, s, q, addToGroupCall(id, { playlistIds: ids }, q), { changes: true });
}
