// `mcat playlist list`: a user's playlists, page by page or all of them.
import { defineCommand, type CommandContext } from '../../command';
import { about, ofUser, outputFormat } from '../../context';
import { checkPaging, pagingOptions, runListing, type PagingFlags } from '../../listing';
import { userFlag, userSession, type UserTokenFlags } from '../../user-token';
import { playlistListView } from '../../views/playlists';
import { queryOf, WHOSE } from './shared';

export default defineCommand<PagingFlags & UserTokenFlags>({
  name: 'list',
  description: "a user's playlists",
  options: [...WHOSE, ...pagingOptions(500)],
  help: [
    "Whose: the profile's user, or --user ID with that user's token (a profile per customer, MCAT_TOKEN and",
    'MCAT_TOKEN_SECRET, or two lines on standard input with --user-token-from-stdin).',
  ].join('\n'),
  examples: [
    'mcat playlist list',
    'mcat playlist list --all -o ndjson | jq -r .id',
    `printf '%s\\n' "$USER_TOKEN" "$USER_TOKEN_SECRET" | mcat playlist list --user 10002 --user-token-from-stdin`,
  ],
  json: async () => playlistListView,
  run: runList,
});

async function runList(flags: PagingFlags & UserTokenFlags, ctx: CommandContext): Promise<void> {
  const user = userFlag(flags.user);
  checkPaging(flags, 500);
  outputFormat(ctx);
  const s = await userSession(ctx, { ...flags, user });
  const { listPlaylistsUnread, listPlaylistsCall } = await import('../../../client/playlists');
  const { xmlOfCall } = await import('../../xml-output');
  const q = queryOf(s, user);
  await runListing(ctx, flags, {
    pagingPath: 'playlists',
    what: 'the playlists',
    listPath: 'playlists.playlist',
    maxPageSize: 500,
    defaultPageSize: 10,
    view: playlistListView,
    heading: about(s, `Playlists of ${ofUser(q.userId)}`),
    fetchPage: (page, pageSize, signal) => listPlaylistsUnread(s.client, { ...q, page, pageSize, signal }),
    fetchXml: (page, pageSize, signal) => xmlOfCall(s.client, listPlaylistsCall({ ...q, page, pageSize, signal })),
  });
}
