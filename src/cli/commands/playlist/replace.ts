// `mcat playlist replace ID --from FILE`: a playlist replaced whole (or, with --dry-run, what would change).
import { UsageError } from '../../errors';
import { print } from '../../../output/streams';
import { defineCommand, type CommandContext } from '../../command';
import type { ReplaceBody } from '../../../client/playlists';
import type { PlaylistFieldsIn } from './input';
import { outputFormat, printAfterChange } from '../../context';
import { checkStdinUse, userFlag, userSession } from '../../user-token';
import { INPUT_FORMAT, WHOSE, bodyFields, printPlaylist, queryOf, xmlOf, type ReplaceFlags } from './shared';

export default defineCommand<ReplaceFlags & { playlistId: string }>({
  name: 'replace',
  description: 'replace a playlist whole: its tracks and the fields given',
  arguments: [{ name: '<playlistId>', description: 'playlist id', complete: '@playlist' }],
  options: [
    { flags: '--from <file>', description: "the new playlist: a JSON body as the API's, or tracks as NDJSON or CSV ('-' for standard input)", required: true, complete: '@file' },
    INPUT_FORMAT,
    { flags: '--name <name>', description: 'name (overrides the file)' },
    { flags: '--status <status>', description: 'draft or published (overrides the file)', complete: ['draft', 'published'] },
    { flags: '--visibility <visibility>', description: 'private or public (overrides the file)', complete: ['private', 'public'] },
    { flags: '--image-url <url>', description: 'image address, http or https (overrides the file)' },
    { flags: '--description <text>', description: 'description (overrides the file)' },
    { flags: '--description-file <file>', description: 'description read from a file', complete: '@file' },
    { flags: '--annotation <key=value>', description: 'an annotation (repeatable; added to those of the file)', repeatable: true },
    { flags: '--dry-run', description: 'show what would change against the current playlist; send nothing' },
    ...WHOSE,
  ],
  help: 'CSV: a header row naming trackId and optionally trackTitle, trackVersion, artistAppearsAs, releaseId,\nreleaseTitle, releaseArtistAppearsAs, releaseVersion. NDJSON: one track object per line.',
  examples: ['mcat playlist replace ad0ed2b4b45b8d81945103f4 --from tracks.csv --status published', 'mcat playlist replace ad0ed2b4b45b8d81945103f4 --from body.json --dry-run'],
  json: async () => (await import('../../views/playlists')).playlistTracksView,
  run: runReplace,
});

async function runReplace(flags: ReplaceFlags & { playlistId: string }, ctx: CommandContext): Promise<void> {
  // the input module brings zod: loaded when the command runs, not for its help
  const { checkInputFormat, checkPlaylistId, fieldsFromFlags, readPlaylistFile, warnDescription } = await import('./input');
  checkStdinUse(flags, { '--from -': flags.from, '--description-file -': flags.descriptionFile });
  const id = checkPlaylistId(flags.playlistId);
  const user = userFlag(flags.user);
  const fromFlags = await fieldsFromFlags(flags);
  const format = checkInputFormat(flags.inputFormat);
  if (flags.from === undefined) throw new UsageError('--from FILE is required (the new track list)');
  if (flags.from === '-' && flags.descriptionFile === '-') throw new UsageError("--from and --description-file cannot both read standard input");
  const file = await readPlaylistFile(flags.from, { format, playlistId: id, playlistIdForCsv: id });
  const fileFields = bodyFields(file);
  const flagFields = bodyFields(fromFlags);
  if (file.annotations && fromFlags.annotations) flagFields.annotations = { ...file.annotations, ...fromFlags.annotations };
  const body: ReplaceBody & PlaylistFieldsIn = { ...fileFields, ...flagFields, tracks: file.tracks };
  warnDescription(body.description);
  const fmt = outputFormat(ctx);
  if (flags.dryRun && (fmt === 'csv' || fmt === 'tsv' || fmt === 'xml')) throw new UsageError(`--dry-run prints a table, json or ndjson, not ${fmt}`);
  const s = await userSession(ctx, { ...flags, user });
  const q = queryOf(s, user);
  const playlists = await import('../../../client/playlists');
  if (flags.dryRun) {
    const { diffPlaylist, formatDiff } = await import('../../../bulk/diff');
    const current = await playlists.getPlaylist(s.client, id, q);
    const diff = diffPlaylist(current.playlist, body);
    if (fmt === 'table') {
      const lines = [`playlist ${id}: replace (dry run)`, ...formatDiff(diff, { maxTracks: 1000 }).map((l) => `  ${l}`), 'nothing was sent'];
      await print(lines.join('\n') + '\n', 'lines'); // text for people: names and titles with bidi controls shown
    } else {
      const doc = { playlistId: id, dryRun: true, diff, request: body };
      if (fmt === 'ndjson') await print(JSON.stringify(doc) + '\n');
      else await (await import('../../json-out')).printJson(ctx, doc);
    }
    return;
  }
  if (fmt === 'xml') return (await import('../../xml-output')).printXml((await xmlOf(s, playlists.replacePlaylistCall(id, body, q))).text);
  const res = await playlists.replacePlaylist(s.client, id, body, q);
  await printAfterChange(() => printPlaylist(ctx, res, s, user));
}
