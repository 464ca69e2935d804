// The work behind `playlist list|show|create|details|replace`, loaded only when they run.
import type { Command } from 'commander';
import { UsageError } from '../errors';
import type { Call } from '../../client/call';
import { noteUserScope } from '../errors';
import { checkStdinUse, userSession, type UserTokenFlags } from '../user-token';
import { about, globalsOf, notice, ofUser, output, outputFormat, type Session } from '../context';
import { print } from '../../output/streams';
import { checkPaging, runListing, type PagingFlags } from '../listing';
import { playlistListView, playlistSheet, playlistTracksView } from '../views/playlists';
import type { FieldFlags, ReplaceFlags } from './playlist';
import {
  checkInputFormat,
  checkPlaylistId,
  fieldsFromFlags,
  readPlaylistFile,
  warnDescription,
  type PlaylistFieldsIn,
} from './playlist-input';

/* eslint-disable @typescript-eslint/no-explicit-any */

export function userFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (!v || /[\s\u0000-\u001f]/.test(v)) throw new UsageError(`--user must be a user id, got '${value}'`);
  return v;
}

export function queryOf(s: Session, user: string | undefined): { country: string; userId?: string } {
  const userId = user ?? s.userId;
  noteUserScope({ requestedUser: user });
  return userId ? { country: s.country, userId } : { country: s.country };
}

/** A playlist call's answer as the service's XML (-o xml), and its JSON shape for notices. */
async function xmlOf(s: Session, call: Call): Promise<{ text: string; body: any }> {
  return (await import('../xml-output')).fetchXml(s.client, call);
}

export async function runList(cmd: Command, flags: PagingFlags & UserTokenFlags): Promise<void> {
  const user = userFlag(flags.user);
  checkPaging(flags, 500);
  outputFormat(cmd);
  const s = await userSession(cmd, { ...flags, user });
  const { listPlaylists, listPlaylistsCall } = await import('../../client/playlists');
  const { xmlOfCall } = await import('../xml-output');
  const q = queryOf(s, user);
  await runListing(cmd, flags, {
    pagingPath: 'playlists',
    what: 'the playlists',
    listPath: 'playlists.playlist',
    maxPageSize: 500,
    defaultPageSize: 10,
    view: playlistListView,
    heading: about(s, `Playlists of ${ofUser(q.userId)}`),
    fetchPage: (page, pageSize, signal) => listPlaylists(s.client, { ...q, page, pageSize, signal }),
    fetchXml: (page, pageSize, signal) => xmlOfCall(s.client, listPlaylistsCall({ ...q, page, pageSize, signal })),
  });
}

/** One playlist body: a sheet of its fields and its tracks in a table; json/ndjson/csv/xml as the output sink prints them. */
export async function printPlaylist(cmd: Command, body: any, s: Session, user: string | undefined): Promise<void> {
  const out = await output(cmd);
  out.heading(about(s, `Playlist ${body?.playlist?.id ?? ''} of ${ofUser(queryOf(s, user).userId)}`));
  const g = globalsOf(cmd);
  if (outputFormat(cmd) === 'table' && g.fields === undefined) {
    const { renderSheet } = await import('../../output/table');
    const { colorEnabled, terminalWidth } = await import('../../output/tty');
    const text = renderSheet(playlistSheet(body?.playlist ?? {}), {
      color: colorEnabled({ isTTY: Boolean(process.stdout.isTTY), env: process.env, flag: g.color }),
      width: terminalWidth(process.stdout, process.env),
    });
    await out.raw(text.endsWith('\n') ? text : text + '\n');
    if (!Array.isArray(body?.playlist?.tracks) || body.playlist.tracks.length === 0) return;
  }
  await out.document(body, playlistTracksView);
}

export async function runShow(cmd: Command, idArg: string, flags: UserTokenFlags): Promise<void> {
  const id = checkPlaylistId(idArg);
  const user = userFlag(flags.user);
  const xml = outputFormat(cmd) === 'xml';
  const s = await userSession(cmd, { ...flags, user });
  const { getPlaylist, getPlaylistCall } = await import('../../client/playlists');
  if (xml) return (await import('../xml-output')).printXml((await xmlOf(s, getPlaylistCall(id, queryOf(s, user)))).text);
  const body = await getPlaylist(s.client, id, queryOf(s, user));
  await printPlaylist(cmd, body, s, user);
}

function bodyFields(f: PlaylistFieldsIn): Record<string, unknown> {
  const b: Record<string, unknown> = {};
  for (const k of ['name', 'status', 'visibility', 'description', 'imageUrl', 'annotations'] as const) if (f[k] !== undefined) b[k] = f[k];
  return b;
}

export async function runCreate(cmd: Command, flags: ReplaceFlags): Promise<void> {
  checkStdinUse(flags, { '--from -': flags.from, '--description-file -': flags.descriptionFile });
  const user = userFlag(flags.user);
  const fromFlags = await fieldsFromFlags(flags);
  const format = checkInputFormat(flags.inputFormat);
  if (format && flags.from === undefined) throw new UsageError('--input-format applies to --from');
  let body: Record<string, unknown> = {};
  if (flags.from !== undefined) {
    const file = await readPlaylistFile(flags.from, { format, tracksOptional: true });
    body = { ...bodyFields(file), tracks: file.tracks };
    if (file.annotations && fromFlags.annotations) fromFlags.annotations = { ...file.annotations, ...fromFlags.annotations };
  }
  body = { ...body, ...bodyFields(fromFlags) };
  warnDescription(body.description as string | undefined);
  const xml = outputFormat(cmd) === 'xml';
  const s = await userSession(cmd, { ...flags, user });
  const { createPlaylist, createPlaylistCall } = await import('../../client/playlists');
  if (xml) {
    const res = await xmlOf(s, createPlaylistCall(body as any, queryOf(s, user)));
    notice(`mcat: created playlist${res.body?.playlist?.id !== undefined ? ` ${res.body.playlist.id}` : ''}`);
    return (await import('../xml-output')).printXml(res.text);
  }
  const res = await createPlaylist(s.client, body as any, queryOf(s, user));
  notice(`mcat: created playlist ${res.playlist.id}`);
  await printPlaylist(cmd, res, s, user);
}

export async function runDetails(cmd: Command, idArg: string, flags: FieldFlags): Promise<void> {
  checkStdinUse(flags, { '--description-file -': flags.descriptionFile });
  const id = checkPlaylistId(idArg);
  const user = userFlag(flags.user);
  const fields = await fieldsFromFlags(flags);
  const body = bodyFields(fields);
  if (Object.keys(body).length === 0) {
    throw new UsageError('nothing to change', 'give at least one of --name, --visibility, --status, --image-url, --description, --description-file, --annotation');
  }
  warnDescription(fields.description);
  const xml = outputFormat(cmd) === 'xml';
  const s = await userSession(cmd, { ...flags, user });
  const { updatePlaylistDetails, getPlaylist, updatePlaylistDetailsCall, getPlaylistCall } = await import('../../client/playlists');
  const q = queryOf(s, user);
  if (xml) {
    const res = await xmlOf(s, updatePlaylistDetailsCall(id, body as any, q));
    // the spec shows no response body: read the playlist back when the service sends none
    const shown = res.body?.playlist ? res : await xmlOf(s, getPlaylistCall(id, q));
    return (await import('../xml-output')).printXml(shown.text);
  }
  const res = await updatePlaylistDetails(s.client, id, body as any, q);
  // the spec shows no response body: read the playlist back when the service sends none
  const shown = res.playlist ? { playlist: res.playlist } : await getPlaylist(s.client, id, q);
  await printPlaylist(cmd, shown, s, user);
}

export async function runReplace(cmd: Command, idArg: string, flags: ReplaceFlags): Promise<void> {
  checkStdinUse(flags, { '--from -': flags.from, '--description-file -': flags.descriptionFile });
  const id = checkPlaylistId(idArg);
  const user = userFlag(flags.user);
  const fromFlags = await fieldsFromFlags(flags);
  const format = checkInputFormat(flags.inputFormat);
  if (flags.from === undefined) throw new UsageError('--from FILE is required (the new track list)');
  if (flags.from === '-' && flags.descriptionFile === '-') throw new UsageError("--from and --description-file cannot both read standard input");
  const file = await readPlaylistFile(flags.from, { format, playlistId: id, playlistIdForCsv: id });
  const fileFields = bodyFields(file);
  const flagFields = bodyFields(fromFlags);
  if (file.annotations && fromFlags.annotations) flagFields.annotations = { ...file.annotations, ...fromFlags.annotations };
  const body: Record<string, unknown> = { ...fileFields, ...flagFields, tracks: file.tracks };
  warnDescription(body.description as string | undefined);
  const fmt = outputFormat(cmd);
  if (flags.dryRun && (fmt === 'csv' || fmt === 'tsv' || fmt === 'xml')) throw new UsageError(`--dry-run prints a table or json, not ${fmt}`);
  const s = await userSession(cmd, { ...flags, user });
  const q = queryOf(s, user);
  const playlists = await import('../../client/playlists');
  if (flags.dryRun) {
    const { diffPlaylist, formatDiff } = await import('../../bulk/diff');
    const current = await playlists.getPlaylist(s.client, id, q);
    const diff = diffPlaylist(current.playlist as any, body as any);
    if (fmt === 'table') {
      const lines = [`playlist ${id}: replace (dry run)`, ...formatDiff(diff, { maxTracks: 1000 }).map((l) => `  ${l}`), 'nothing was sent'];
      await print(lines.join('\n') + '\n');
    } else {
      const doc = { playlistId: id, dryRun: true, diff, request: body };
      if (fmt === 'ndjson') await print(JSON.stringify(doc) + '\n');
      else await (await import('../json-out')).printJson(cmd, doc);
    }
    return;
  }
  if (fmt === 'xml') return (await import('../xml-output')).printXml((await xmlOf(s, playlists.replacePlaylistCall(id, body as any, q))).text);
  const res = await playlists.replacePlaylist(s.client, id, body as any, q);
  await printPlaylist(cmd, res, s, user);
}
