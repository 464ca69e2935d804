// `mcat playlist show ID`: one playlist with its tracks.
import { defineCommand, type CommandContext } from '../../command';
import { outputFormat } from '../../context';
import { userFlag, userSession, type UserTokenFlags } from '../../user-token';
import { printPlaylist, queryOf, WHOSE, xmlOf } from './shared';

type ShowFlags = UserTokenFlags & { playlistId: string };

export default defineCommand<ShowFlags>({
  name: 'show',
  description: 'one playlist with its tracks',
  arguments: [{ name: '<playlistId>', description: 'playlist id (24 hexadecimal characters)', complete: '@playlist' }],
  options: WHOSE,
  examples: ['mcat playlist show ad0ed2b4b45b8d81945103f4', 'mcat playlist show ad0ed2b4b45b8d81945103f4 -o json > backup.json'],
  json: async () => (await import('../../views/playlists')).playlistTracksView,
  run: runShow,
});

async function runShow(flags: ShowFlags, ctx: CommandContext): Promise<void> {
  // the input module brings zod: loaded when the command runs, not for its help
  const { checkPlaylistId } = await import('./input');
  const id = checkPlaylistId(flags.playlistId);
  const user = userFlag(flags.user);
  const xml = outputFormat(ctx) === 'xml';
  const s = await userSession(ctx, { ...flags, user });
  const { getPlaylist, getPlaylistCall } = await import('../../../client/playlists');
  if (xml) return (await import('../../xml-output')).printXml((await xmlOf(s, getPlaylistCall(id, queryOf(s, user)))).text);
  const body = await getPlaylist(s.client, id, queryOf(s, user));
  await printPlaylist(ctx, body, s, user);
}
