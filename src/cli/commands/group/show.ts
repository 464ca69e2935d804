// `mcat group show ID`: a group and its playlists (read by adding none: nothing changes).
import { defineCommand, type CommandContext } from '../../command';
import { outputFormat } from '../../context';
import { userFlag, userSession } from '../../user-token';
import { GROUP_ID, WHOSE, groupQuery, sendAndPrint, type GroupFlags } from './shared';

export default defineCommand<GroupFlags>({
  name: 'show',
  description: 'a group and its playlists (asked for by adding no playlists: nothing changes)',
  arguments: [GROUP_ID],
  options: WHOSE,
  examples: ['mcat group show ca4cda5a7a2888a359ea1de8', 'mcat group show ca4cda5a7a2888a359ea1de8 -o json | jq .playlistGroup.playlistCount'],
  json: async () => (await import('../../views/playlists')).groupView,
  run: runGroupShow,
});

async function runGroupShow(flags: GroupFlags, ctx: CommandContext): Promise<void> {
  // the input module brings zod: loaded when the command runs, not for its help
  const { checkPlaylistId } = await import('../playlist/input');
  const id = checkPlaylistId(flags.groupId, 'group');
  const user = userFlag(flags.user);
  outputFormat(ctx);
  const s = await userSession(ctx, { ...flags, user });
  const q = groupQuery(s, user);
  const { readGroupCall } = await import('../../../client/groups');
  await sendAndPrint(ctx, s, q, readGroupCall(id, q), { changes: false });
}
