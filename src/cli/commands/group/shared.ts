// What the group commands share: their flags and options, whose group, the call and its printing.
import { UsageError } from '../../errors';
import type { Call } from '../../../client/call';
import type { GroupQuery } from '../../../client/groups';
import type { CommandContext, OptionDef } from '../../command';
import { about, output, outputFormat, printAfterChange, say, type Session, sheetTo } from '../../context';
import { noteUserScope } from '../../errors';
import { USER_TOKEN_OPTION } from '../../user-token';
import { groupIdOf, groupSheet, groupView, ignoredGroupIds } from '../../views/playlists';
import type { PlaylistGroupBody } from '../../../client/schemas/playlist';

export interface GroupFlags {
  groupId: string;
  user?: string;
  userTokenFromStdin?: boolean;
  name?: string;
  playlist?: string[];
}

export const GROUP_ID = { name: '<groupId>', description: 'group id' } as const;

/** --user and the token flag: whose group (every group command takes them, last). */
export const WHOSE: readonly OptionDef[] = [{ flags: '--user <id>', description: "the group's owner (default: the user of the profile's token)" }, USER_TOKEN_OPTION];

export const PLAYLIST_IDS = "playlist ids (repeatable, space- or comma-separated; '-' reads ids or playlist rows from standard input)";

/** Ids given to --playlist; '-' reads them from standard input (ids, or playlist rows as `playlist list` prints them). */
export async function playlistIds(values: string[] | undefined): Promise<string[]> {
  // the input module brings zod: loaded when the command runs, not for its help
  const { checkPlaylistId } = await import('../playlist/input');
  const out: string[] = [];
  const add = (id: string) => {
    const checked = checkPlaylistId(id);
    if (!out.includes(checked)) out.push(checked);
  };
  for (const v of values ?? []) {
    if (v === '-') {
      const { readTextInput } = await import('../../ids');
      const { playlistIdsFromText } = await import('../../rows-in');
      const text = await readTextInput('-');
      // nothing at all (a command before the pipe that failed) is not "no playlists": a group
      // emptied by a failure upstream; a header alone (a user with none, as CSV) is
      if (!/\S/.test(text)) {
        throw new UsageError('standard input: empty input, expected playlist ids (one a line, or NDJSON or CSV of playlist list); nothing was sent');
      }
      for (const { id, where } of playlistIdsFromText(text, 'standard input')) {
        try {
          add(id.trim());
        } catch (e) {
          // named where it was read, and on which line (CONVENTIONS.md: the file, the line, what was expected)
          if (!(e instanceof UsageError)) throw e;
          throw new UsageError(`${where}: ${e.message}`, e.hint);
        }
      }
      continue;
    }
    for (const part of v.split(',')) if (part.trim()) add(part.trim());
  }
  return out;
}

export function groupQuery(s: Session, user: string | undefined): GroupQuery {
  const userId = user ?? s.userId;
  noteUserScope({ requestedUser: user });
  if (!userId) {
    throw new UsageError('playlist group calls need a user id', "pass --user ID, or set MCAT_USER_ID / the profile's user");
  }
  return { country: s.country, userId };
}

function sayIgnored(body: unknown): void {
  const ignored = ignoredGroupIds(body);
  if (ignored.length) {
    say(`mcat: ${ignored.length} id${ignored.length === 1 ? '' : 's'} in group ${groupIdOf(body) ?? ''} ${ignored.length === 1 ? 'names no playlist and is' : 'name no playlist and are'} ignored by the service: ${ignored.join(', ')}`);
  }
}

/** The group call's answer: the service's XML as received for -o xml, else its parsed body printed (`changes`: the call changes the group). */
export async function sendAndPrint(ctx: CommandContext, s: Session, q: GroupQuery, call: Call, { changes }: { changes: boolean }): Promise<void> {
  if (outputFormat(ctx) === 'xml') {
    const { fetchXml, printXml } = await import('../../xml-output');
    const { text, body } = await fetchXml(s.client, call, 'playlistGroup');
    sayIgnored(body);
    return printXml(text);
  }
  const { callJson } = await import('../../../client/call');
  // printed as read: a group sent bare is printed in its envelope (the call's schema), as a playlist is
  const body = await callJson<PlaylistGroupBody>(s.client, call);
  await (changes ? printAfterChange(() => printGroup(ctx, body, s, q)) : printGroup(ctx, body, s, q));
}

async function printGroup(ctx: CommandContext, body: PlaylistGroupBody, s: Session, q: GroupQuery): Promise<void> {
  sayIgnored(body);
  const out = await output(ctx);
  out.heading(about(s, `Playlist group ${body?.playlistGroup?.id ?? ''} of user ${q.userId}`));
  const g = ctx.globals;
  if (outputFormat(ctx) === 'table' && g.fields === undefined) {
    await sheetTo(ctx, out, groupSheet(body?.playlistGroup ?? {}));
    if (!Array.isArray(body?.playlistGroup?.playlists) || body.playlistGroup.playlists.length === 0) return;
  }
  await out.document(body, groupView);
}

