// `mcat locker check TRACK_ID`: can this user download or stream this track, and if not, why.
// Reads only: the locker pages until the track turns up; never the media endpoints' download.
import type { Command } from 'commander';
import { ApiError, AuthError } from '../../client/errors';
import { UsageError } from '../errors';
import { PartialError } from '../errors';
import { outputFormat, printSheet, whoseLabel } from '../context';
import { ranOutAt } from '../download-log';
import { parseIntegerId } from '../ids';
import { findTrack } from '../locker-walk';
import { userSession, type UserTokenFlags } from '../user-token';
import { print } from '../../output/streams';
import { checkSheet, checkVerdict, type CheckInput } from '../views/locker-support';

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

export async function runCheck(cmd: Command, trackIdArg: string, flags: UserTokenFlags): Promise<void> {
  const trackId = parseIntegerId(trackIdArg, 'track');
  const format = outputFormat(cmd);
  if (format !== 'table' && format !== 'json' && format !== 'ndjson') throw new UsageError(`locker check prints a table, json or ndjson, not ${format}`);
  const s = await userSession(cmd, flags);
  const input: CheckInput = { trackId, userId: s.userId, country: s.country };
  try {
    const { hit, searched } = await findTrack(s, trackId);
    input.hit = hit;
    input.searched = searched;
    if (hit && hit.lr.available !== false && hit.lt.remainingDownloads === 0) input.noDownloadsLeftSince = ranOutAt(s.account, trackId);
  } catch (e) {
    input.countryRefused = countryRefusal(e);
    if (input.countryRefused === undefined) throw e;
  }
  const verdict = checkVerdict(input);
  if (format === 'table') await printSheet(cmd, checkSheet(verdict, whoseLabel(s)));
  else if (format === 'json') await (await import('../json-out')).printJson(cmd, verdict);
  else await print(JSON.stringify(verdict) + '\n');
  if (verdict.canDownload) return;
  const e = new PartialError(`track ${trackId} cannot be downloaded: ${verdict.message}`);
  e.hint = verdict.reason === 'no-downloads-left' ? HINTS[verdict.reason] + trackId : verdict.reason ? HINTS[verdict.reason] : undefined;
  throw e;
}
