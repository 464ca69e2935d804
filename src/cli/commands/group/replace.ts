// `mcat group replace ID --name NAME --playlist IDS`: a group made exactly this (created if missing).
import { UsageError } from '../../errors';
import { defineCommand, type CommandContext } from '../../command';
import { outputFormat } from '../../context';
import { checkStdinUse, userFlag, userSession } from '../../user-token';
import { GROUP_ID, PLAYLIST_IDS, WHOSE, groupQuery, playlistIds, sendAndPrint, type GroupFlags } from './shared';

export default defineCommand<GroupFlags>({
  name: 'replace',
  description: 'make a group exactly this name and these playlists (creates it if missing)',
  arguments: [{ ...GROUP_ID, description: 'group id (24 hexadecimal characters)' }],
  options: [{ flags: '--name <name>', description: 'group name', required: true }, { flags: '--playlist <ids...>', description: PLAYLIST_IDS, complete: '@playlist' }, ...WHOSE],
  examples: [
    'mcat group replace ca4cda5a7a2888a359ea1de8 --name Favourites --playlist ad0ed2b4b45b8d81945103f4',
    'mcat playlist list --all -o ndjson | mcat group replace ca4cda5a7a2888a359ea1de8 --name All --playlist -',
  ],
  json: async () => (await import('../../views/playlists')).groupView,
  run: runGroupReplace,
});

async function runGroupReplace(flags: GroupFlags, ctx: CommandContext): Promise<void> {
  // the input module brings zod: loaded when the command runs, not for its help
  const { checkPlaylistId } = await import('../playlist/input');
  const id = checkPlaylistId(flags.groupId, 'group');
  const user = userFlag(flags.user);
  if (flags.name === undefined || flags.name.trim() === '') throw new UsageError('--name must not be empty');
  checkStdinUse(flags, { '--playlist -': flags.playlist?.includes('-') ? '-' : undefined });
  const ids = await playlistIds(flags.playlist);
  outputFormat(ctx);
  const s = await userSession(ctx, { ...flags, user });
  const q = groupQuery(s, user);
  const { replaceGroupCall } = await import('../../../client/groups');
  await sendAndPrint(ctx, s, q, replaceGroupCall(id, { name: flags.name, playlistIds: ids }, q), { changes: true });
}
