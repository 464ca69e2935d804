// What the playlist commands share: their field options and flags, whose playlists, printing one.
import type { Call } from '../../../client/call';
import type { OptionDef, CommandContext } from '../../command';
import { about, ofUser, output, outputFormat, type Session, sheetTo } from '../../context';
import { noteUserScope } from '../../errors';
import { USER_TOKEN_OPTION } from '../../user-token';
import { playlistSheet, playlistTracksView } from '../../views/playlists';
import type { PlaylistFieldsIn } from './input';
import type { PlaylistBody } from '../../../client/schemas/playlist';

export interface FieldFlags {
  user?: string;
  userTokenFromStdin?: boolean;
  name?: string;
  status?: string;
  visibility?: string;
  imageUrl?: string;
  description?: string;
  descriptionFile?: string;
  annotation?: string[];
}

export interface ReplaceFlags extends FieldFlags {
  from?: string;
  inputFormat?: string;
  dryRun?: boolean;
}

/** --user and the token flag: whose playlists (every playlist command takes them, last). */
export const WHOSE: readonly OptionDef[] = [
  { flags: '--user <id>', description: "the user whose playlists these are (default: the user of the profile's token)" },
  USER_TOKEN_OPTION,
];

export const STATUS: OptionDef = { flags: '--status <status>', description: 'draft or published', complete: ['draft', 'published'] };
export const VISIBILITY: OptionDef = { flags: '--visibility <visibility>', description: 'private or public', complete: ['private', 'public'] };
export const IMAGE_URL: OptionDef = { flags: '--image-url <url>', description: 'image address, http or https (empty: no image)' };
export const DESCRIPTION: OptionDef = { flags: '--description <text>', description: 'description (the service keeps the first 500 characters)' };
export const DESCRIPTION_FILE: OptionDef = { flags: '--description-file <file>', description: "description read from a file ('-' for standard input)", complete: '@file' };
export const ANNOTATION: OptionDef = { flags: '--annotation <key=value>', description: 'an annotation saved with the playlist (repeatable)', repeatable: true };
export const INPUT_FORMAT: OptionDef = { flags: '--input-format <format>', description: 'json, ndjson or csv (default: from the file name, else detected)', complete: ['ndjson', 'json', 'csv'] };

export function queryOf(s: Session, user: string | undefined): { country: string; userId?: string } {
  const userId = user ?? s.userId;
  noteUserScope({ requestedUser: user });
  return userId ? { country: s.country, userId } : { country: s.country };
}

/**
 * A playlist call's answer as the service's XML (-o xml), and its JSON shape for notices: a
 * playlist body as far as it goes (read from the XML, not checked: notices only print it).
 */
export async function xmlOf(s: Session, call: Call): Promise<{ text: string; body: Partial<PlaylistBody> | undefined }> {
  return (await import('../../xml-output')).fetchXml(s.client, call, 'playlist');
}

/** One playlist body: a sheet of its fields and its tracks in a table; json/ndjson/csv/xml as the output sink prints them. */
export async function printPlaylist(ctx: CommandContext, body: PlaylistBody, s: Session, user: string | undefined): Promise<void> {
  const out = await output(ctx);
  out.heading(about(s, `Playlist ${body?.playlist?.id ?? ''} of ${ofUser(queryOf(s, user).userId)}`));
  const g = ctx.globals;
  if (outputFormat(ctx) === 'table' && g.fields === undefined) {
    await sheetTo(ctx, out, playlistSheet(body?.playlist ?? {}));
    if (!Array.isArray(body?.playlist?.tracks) || body.playlist.tracks.length === 0) return;
  }
  await out.document(body, playlistTracksView);
}

export function bodyFields(f: PlaylistFieldsIn): PlaylistFieldsIn {
  const b: PlaylistFieldsIn = {};
  const copy = <K extends keyof PlaylistFieldsIn>(k: K) => {
    if (f[k] !== undefined) b[k] = f[k];
  };
  for (const k of ['name', 'status', 'visibility', 'description', 'imageUrl', 'annotations'] as const) copy(k);
  return b;
}

