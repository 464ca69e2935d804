// `mcat playlist details ID`: change a playlist's name, status, visibility, image, description, annotations.
import { UsageError } from '../../errors';
import { defineCommand, type CommandContext } from '../../command';
import { outputFormat, printAfterChange } from '../../context';
import { checkStdinUse, userFlag, userSession } from '../../user-token';
import { ANNOTATION, DESCRIPTION, DESCRIPTION_FILE, IMAGE_URL, STATUS, VISIBILITY, WHOSE, bodyFields, printPlaylist, queryOf, xmlOf, type FieldFlags } from './shared';

type DetailsFlags = FieldFlags & { playlistId: string };

export default defineCommand<DetailsFlags>({
  name: 'details',
  description: "change a playlist's details (tracks are not affected)",
  arguments: [{ name: '<playlistId>', description: 'playlist id', complete: '@playlist' }],
  options: [
    { flags: '--name <name>', description: 'new name' },
    VISIBILITY,
    STATUS,
    IMAGE_URL,
    DESCRIPTION,
    DESCRIPTION_FILE,
    ANNOTATION,
    ...WHOSE,
  ],
  examples: ['mcat playlist details ad0ed2b4b45b8d81945103f4 --visibility public', 'mcat playlist details ad0ed2b4b45b8d81945103f4 --description-file notes.txt'],
  json: async () => (await import('../../views/playlists')).playlistTracksView,
  run: runDetails,
});

async function runDetails(flags: DetailsFlags, ctx: CommandContext): Promise<void> {
  // the input module brings zod: loaded when the command runs, not for its help
  const { checkPlaylistId, fieldsFromFlags, warnDescription } = await import('./input');
  checkStdinUse(flags, { '--description-file -': flags.descriptionFile });
  const id = checkPlaylistId(flags.playlistId);
  const user = userFlag(flags.user);
  const fields = await fieldsFromFlags(flags);
  const body = bodyFields(fields);
  if (Object.keys(body).length === 0) {
    throw new UsageError('nothing to change', 'give at least one of --name, --visibility, --status, --image-url, --description, --description-file, --annotation');
  }
  warnDescription(fields.description);
  const xml = outputFormat(ctx) === 'xml';
  const s = await userSession(ctx, { ...flags, user });
  const { updatePlaylistDetails, getPlaylist, updatePlaylistDetailsCall, getPlaylistCall } = await import('../../../client/playlists');
  const q = queryOf(s, user);
  if (xml) {
    const res = await xmlOf(s, updatePlaylistDetailsCall(id, body, q));
    // the spec shows no response body: read the playlist back when the service sends none
    const shown = res.body?.playlist ? res : await xmlOf(s, getPlaylistCall(id, q));
    return (await import('../../xml-output')).printXml(shown.text);
  }
  const res = await updatePlaylistDetails(s.client, id, body, q);
  // the spec shows no response body: read the playlist back when the service sends none
  const shown = res.body ?? (await getPlaylist(s.client, id, q));
  await printAfterChange(() => printPlaylist(ctx, shown, s, user));
}
