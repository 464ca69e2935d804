// `mcat playlist create --name NAME`: a new playlist, its tracks from a file if given.
import { UsageError } from '../../errors';
import { defineCommand, type CommandContext } from '../../command';
import type { CreateBody, DetailsBody } from '../../../client/playlists';
import { notice, outputFormat, printAfterChange } from '../../context';
import { checkStdinUse, userFlag, userSession } from '../../user-token';
import { ANNOTATION, DESCRIPTION, DESCRIPTION_FILE, IMAGE_URL, INPUT_FORMAT, STATUS, VISIBILITY, WHOSE, bodyFields, printPlaylist, queryOf, xmlOf, type ReplaceFlags } from './shared';

/** --name is a mandatory option (commander refuses the command without it). */
type CreateFlags = ReplaceFlags & { name: string };

export default defineCommand<CreateFlags>({
  name: 'create',
  description: 'create a playlist',
  options: [
    { flags: '--name <name>', description: 'playlist name', required: true },
    STATUS,
    VISIBILITY,
    IMAGE_URL,
    DESCRIPTION,
    DESCRIPTION_FILE,
    ANNOTATION,
    { flags: '--from <file>', description: "tracks (and fields) from a JSON body, NDJSON or CSV file ('-' for standard input)", complete: '@file' },
    INPUT_FORMAT,
    ...WHOSE,
  ],
  examples: ['mcat playlist create --name "Road trip" --visibility public', 'mcat playlist create --name Chill --from tracks.csv'],
  json: async () => (await import('../../views/playlists')).playlistTracksView,
  run: runCreate,
});

async function runCreate(flags: CreateFlags, ctx: CommandContext): Promise<void> {
  // the input module brings zod: loaded when the command runs, not for its help
  const { checkInputFormat, fieldsFromFlags, readPlaylistFile, warnDescription } = await import('./input');
  checkStdinUse(flags, { '--from -': flags.from, '--description-file -': flags.descriptionFile });
  const user = userFlag(flags.user);
  const fromFlags = await fieldsFromFlags(flags);
  const format = checkInputFormat(flags.inputFormat);
  if (format && flags.from === undefined) throw new UsageError('--input-format applies to --from');
  let fromFile: DetailsBody = {};
  if (flags.from !== undefined) {
    const file = await readPlaylistFile(flags.from, { format, tracksOptional: true });
    fromFile = { ...bodyFields(file), tracks: file.tracks };
    if (file.annotations && fromFlags.annotations) fromFlags.annotations = { ...file.annotations, ...fromFlags.annotations };
  }
  // the flags' fields over the file's (each key where it first came); the name is the flag's
  const body: CreateBody = { ...fromFile, ...bodyFields(fromFlags), name: flags.name };
  warnDescription(body.description);
  const xml = outputFormat(ctx) === 'xml';
  const s = await userSession(ctx, { ...flags, user });
  const { createPlaylist, createPlaylistCall } = await import('../../../client/playlists');
  if (xml) {
    const res = await xmlOf(s, createPlaylistCall(body, queryOf(s, user)));
    notice(`mcat: created playlist${res.body?.playlist?.id !== undefined ? ` ${res.body.playlist.id}` : ''}`);
    return (await import('../../xml-output')).printXml(res.text);
  }
  const res = await createPlaylist(s.client, body, queryOf(s, user)).catch(async (e: unknown) => {
    // a create is never sent twice (ARCHITECTURE.md); one whose answer was lost may have been made
    if (await mayHaveCreated(e)) (e as { hint?: string }).hint = "the playlist may have been created all the same: look with 'mcat playlist list' before creating it again";
    throw e;
  });
  notice(`mcat: created playlist ${res.playlist.id}`);
  await printAfterChange(() => printPlaylist(ctx, res, s, user));
}

/**
 * Whether a failed create may have been made: not refused (the rule bulk apply's creates follow,
 * definitelyNotApplied), and sent (a connection never made sends nothing).
 */
async function mayHaveCreated(e: unknown): Promise<boolean> {
  const { definitelyNotApplied, NetworkError, TimeoutError } = await import('../../../client/errors');
  const neverSent = (e instanceof TimeoutError && e.phase === 'connect') || (e instanceof NetworkError && ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(e.causeCode ?? ''));
  return !definitelyNotApplied(e) && !neverSent;
}
