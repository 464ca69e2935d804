// The work behind `group replace|add|show`, loaded only when they run.
import type { Command } from 'commander';
import { UsageError } from '../errors';
import type { Call } from '../../client/call';
import type { GroupQuery } from '../../client/groups';
import { noteUserScope } from '../errors';
import { about, globalsOf, output, outputFormat, say, type Session } from '../context';
import { userSession } from '../user-token';
import { groupSheet, groupView, ignoredGroupIds } from '../views/playlists';
import type { GroupFlags } from './group';
import { checkPlaylistId } from './playlist-input';
import { userFlag } from './playlist-run';

/* eslint-disable @typescript-eslint/no-explicit-any */

/** Ids given to --playlist; '-' reads them from standard input (ids, or playlist rows as `playlist list` prints them). */
async function playlistIds(values: string[] | undefined): Promise<string[]> {
  const out: string[] = [];
  const add = (id: string) => {
    const checked = checkPlaylistId(id);
    if (!out.includes(checked)) out.push(checked);
  };
  for (const v of values ?? []) {
    if (v === '-') {
      const { readTextInput } = await import('../ids');
      const { playlistIdsFromText } = await import('./rows-in');
      for (const id of playlistIdsFromText(await readTextInput('-'), 'standard input')) add(id.trim());
      continue;
    }
    for (const part of v.split(',')) if (part.trim()) add(part.trim());
  }
  return out;
}

function groupQuery(s: Session, user: string | undefined): GroupQuery {
  const userId = user ?? s.userId;
  noteUserScope({ requestedUser: user });
  if (!userId) {
    throw new UsageError('playlist group calls need a user id', "pass --user ID, or set MCAT_USER_ID / the profile's user");
  }
  return { country: s.country, userId };
}

function sayIgnored(body: any): void {
  const ignored = ignoredGroupIds(body);
  if (ignored.length) {
    say(`mcat: ${ignored.length} id${ignored.length === 1 ? '' : 's'} in group ${body?.playlistGroup?.id ?? ''} ${ignored.length === 1 ? 'names no playlist and is' : 'name no playlist and are'} ignored by the service: ${ignored.join(', ')}`);
  }
}

/** The group call's answer: the service's XML as received for -o xml, else its parsed body printed. */
async function sendAndPrint(cmd: Command, s: Session, q: GroupQuery, call: Call): Promise<void> {
  if (outputFormat(cmd) === 'xml') {
    const { fetchXml, printXml } = await import('../xml-output');
    const { text, body } = await fetchXml(s.client, call);
    sayIgnored(body);
    return printXml(text);
  }
  const { callJson } = await import('../../client/call');
  await printGroup(cmd, await callJson(s.client, call), s, q);
}

async function printGroup(cmd: Command, body: any, s: Session, q: GroupQuery): Promise<void> {
  sayIgnored(body);
  const out = await output(cmd);
  out.heading(about(s, `Playlist group ${body?.playlistGroup?.id ?? ''} of user ${q.userId}`));
  const g = globalsOf(cmd);
  if (outputFormat(cmd) === 'table' && g.fields === undefined) {
    const { renderSheet } = await import('../../output/table');
    const { colorEnabled, terminalWidth } = await import('../../output/tty');
    const text = renderSheet(groupSheet(body?.playlistGroup ?? {}), {
      color: colorEnabled({ isTTY: Boolean(process.stdout.isTTY), env: process.env, flag: g.color }),
      width: terminalWidth(process.stdout, process.env),
    });
    await out.raw(text.endsWith('\n') ? text : text + '\n');
    if (!Array.isArray(body?.playlistGroup?.playlists) || body.playlistGroup.playlists.length === 0) return;
  }
  await out.document(body, groupView);
}

export async function runGroupReplace(cmd: Command, idArg: string, flags: GroupFlags): Promise<void> {
  const id = checkPlaylistId(idArg, 'group');
  const user = userFlag(flags.user);
  if (flags.name === undefined || flags.name.trim() === '') throw new UsageError('--name must not be empty');
  const ids = await playlistIds(flags.playlist);
  outputFormat(cmd);
  const s = await userSession(cmd, { ...flags, user });
  const q = groupQuery(s, user);
  const { replaceGroupCall } = await import('../../client/groups');
  await sendAndPrint(cmd, s, q, replaceGroupCall(id, { name: flags.name, playlistIds: ids }, q));
}

export async function runGroupAdd(cmd: Command, idArg: string, flags: GroupFlags): Promise<void> {
  const id = checkPlaylistId(idArg, 'group');
  const user = userFlag(flags.user);
  const ids = await playlistIds(flags.playlist);
  if (ids.length === 0) throw new UsageError('--playlist needs at least one playlist id', "to see the group, use 'mcat group show'");
  outputFormat(cmd);
  const s = await userSession(cmd, { ...flags, user });
  const q = groupQuery(s, user);
  const { addToGroupCall } = await import('../../client/groups');
  await sendAndPrint(cmd, s, q, addToGroupCall(id, { playlistIds: ids }, q));
}

export async function runGroupShow(cmd: Command, idArg: string, flags: GroupFlags): Promise<void> {
  const id = checkPlaylistId(idArg, 'group');
  const user = userFlag(flags.user);
  outputFormat(cmd);
  const s = await userSession(cmd, { ...flags, user });
  const q = groupQuery(s, user);
  const { readGroupCall } = await import('../../client/groups');
  await sendAndPrint(cmd, s, q, readGroupCall(id, q));
}
