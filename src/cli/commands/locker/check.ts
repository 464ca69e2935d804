// `mcat locker check TRACK_ID`: can this user download or stream this track, and if not, why.
// Reads only: the locker pages until the track turns up; never the media endpoints' download.
import { ApiError, AuthError } from '../../../client/errors';
import { UsageError } from '../../errors';
import { EntitlementError, PartialError } from '../../errors';
import { outputFormat, printSheet, whoseLabel } from '../../context';
import { oneId } from '../../ids';
import { userSession, USER_TOKEN_OPTION, type UserTokenFlags } from '../../user-token';
import { print } from '../../../output/streams';
import type { CheckInput } from '../../views/locker-support';
import { defineCommand, type CommandContext } from '../../command';

/** The service refused the country (2002): the key is not entitled to it. */
export function countryRefusal(e: unknown): string | undefined {
  if ((e instanceof ApiError || e instanceof AuthError) && e.code === 2002) {
    return `${e instanceof ApiError ? e.apiMessage || e.message : e.reason} (2002)`;
  }
  return undefined;
}

const HINTS = {
  'not-in-locker': "look for it by title or ISRC: mcat locker find TEXT",
  'release-unavailable': "the user's other releases no longer available: mcat locker --unavailable",
  'no-downloads-left': 'streaming stays possible: mcat locker stream-check ',
  'country-not-entitled': "pass a country the key is entitled to with --country ('mcat auth status' lists them)",
} as const;

type CheckFlags = UserTokenFlags & { trackId: string };

export default defineCommand<CheckFlags>({
  name: 'check',
  description: 'can this user download or stream this track, and if not, why (reads only: never uses a download)',
  arguments: [{ name: '<trackId>', description: "track id ('-' reads it from standard input)" }],
  options: [USER_TOKEN_OPTION],
  help: 'Exit: 0 when a download would succeed; 3 when not (not in the locker, release no longer available,\nno downloads left); 4 when the key is not entitled to the country. The verdict is printed either way.',
  examples: ['mcat locker check 10000101', 'mcat locker check 10000101 -o json | jq .canDownload'],
  json: true,
  run: runCheck,
});

async function runCheck(flags: CheckFlags, ctx: CommandContext): Promise<void> {
  const { ranOutAt } = await import('../../download-log');
  const { findTrack } = await import('../../locker-walk');
  const { checkSheet, checkVerdict } = await import('../../views/locker-support');
  const trackId = await oneId(flags.trackId, 'track');
  const format = outputFormat(ctx);
  if (format !== 'table' && format !== 'json' && format !== 'ndjson') throw new UsageError(`locker check prints a table, json or ndjson, not ${format}`);
  const s = await userSession(ctx, flags);
  const input: CheckInput = { trackId, userId: s.userId, country: s.country };
  try {
    const { hit, searched } = await findTrack(s, trackId);
    input.hit = hit;
    input.searched = searched;
    if (hit && hit.lr.available !== false && hit.lt.remainingDownloads === 0) input.noDownloadsLeftSince = ranOutAt(s.account, trackId, ctx.env);
  } catch (e) {
    input.countryRefused = countryRefusal(e);
    if (input.countryRefused === undefined) throw e;
  }
  const verdict = checkVerdict(input);
  if (format === 'table') await printSheet(ctx, checkSheet(verdict, whoseLabel(s)));
  else if (format === 'json') await (await import('../../json-out')).printJson(ctx, verdict);
  else await print(JSON.stringify(verdict) + '\n');
  if (verdict.canDownload) return;
  // a country the key is not entitled to is an entitlement failure (CONVENTIONS.md: exit 4), not a verdict on the track
  const text = `track ${trackId} cannot be downloaded: ${verdict.message}`;
  const e = verdict.reason === 'country-not-entitled' ? new EntitlementError(text) : new PartialError(text);
  e.hint = verdict.reason === 'no-downloads-left' ? HINTS[verdict.reason] + trackId : verdict.reason ? HINTS[verdict.reason] : undefined;
  throw e;
}
