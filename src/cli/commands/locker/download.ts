// `mcat locker download ID`: a purchased track to a file (or standard output), using one download.
import { ApiError, HttpError, McatError, ResponseError } from '../../../client/errors';
import { UsageError } from '../../errors';
import { downloadDeadlineMs, notice, progressLine, say, type Session } from '../../context';
import { oneId, parseIntegerId } from '../../ids';
import { userSession, USER_TOKEN_OPTION } from '../../user-token';
import type { TrackHit } from '../../locker-walk';
import type { DownloadUrl } from '../../../client/schemas/locker';
import { pipeToStdout, stdoutClosed } from '../../../output/streams';
import { clean, safeFileName } from '../../../output/clean';
import { cut } from '../../../output/width';
import { InterruptedError } from '../../errors';
import { defineCommand, type CommandContext } from '../../command';

export interface DownloadFlags {
  trackId: string;
  format?: string;
  outputFile?: string;
  userTokenFromStdin?: boolean;
  clobber?: boolean;
  downloadTimeout?: string;
  dryRun?: boolean;
}

export default defineCommand<DownloadFlags>({
  name: 'download',
  description: 'download a purchased track (uses one of its remaining downloads; says how many are left)',
  arguments: [{ name: '<trackId>', description: "track id ('-' reads it from standard input)" }],
  options: [
    { flags: '--format <id>', description: 'format id (default: the first format offered)' },
    { flags: '-O, --output-file <file>', description: "file to write ('-' for standard output; default: a name from the track)", complete: '@file' },
    { flags: '--clobber', description: 'replace an existing file (never written through: a symlink there is replaced)' },
    { flags: '--download-timeout <ms>', description: 'the longest the whole download may take (default 600000, 10 minutes; env MCAT_DOWNLOAD_TIMEOUT)' },
    { flags: '--dry-run', description: 'say what would happen (file, format, downloads left); download nothing, use nothing' },
    USER_TOKEN_OPTION,
  ],
  help: 'An existing file is not overwritten without --clobber: checked before a download\nis used up, and by --dry-run.',
  examples: ['mcat locker download 10000101 --dry-run', 'mcat locker download 10000101 -O song.mp3', 'mcat locker download 10000102 -O - > song2.mp3'],
  run: runDownload,
});

async function locateTrack(s: Session, trackId: number): Promise<TrackHit> {
  const { findTrack } = await import('../../locker-walk');
  const { hit, searched } = await findTrack(s, trackId);
  if (hit) return hit;
  const e = new McatError(`track ${trackId} is not in ${s.userId ? `user ${s.userId}'s` : "this user's"} locker (${searched.toLocaleString('en-GB')} release${searched === 1 ? '' : 's'} searched)`);
  e.hint = 'look for it by title or ISRC: mcat locker find TEXT';
  throw e;
}

/** After a download: how many are left now (a fresh read of the track's page), recorded locally. */
async function downloadsLeftAfter(ctx: CommandContext, s: Session, trackId: number, hit: TrackHit): Promise<string> {
  const before = typeof hit.lt.remainingDownloads === 'number' ? hit.lt.remainingDownloads : undefined;
  let left: number | undefined;
  try {
    left = await (await import('../../locker-walk')).remainingNow(s, trackId, hit);
  } catch {
    left = undefined; // the file is saved; the count is only information
  }
  left ??= before !== undefined ? Math.max(0, before - 1) : undefined;
  const { recordDownload } = await import('../../download-log');
  recordDownload({ at: new Date().toISOString(), account: s.account, trackId, left: left ?? null }, ctx.env);
  if (left === undefined) return 'downloads left: not shown by the service';
  if (left === 0) return 'no downloads left now (streaming stays possible)';
  return `${left} download${left === 1 ? '' : 's'} left`;
}

async function runDownload(flags: DownloadFlags, ctx: CommandContext): Promise<void> {
  // the file writer brings node:crypto and streams: loaded when a download runs, not for the locker's help
  const { checkTarget, PartFile } = await import('../../part-file');
  const { Transform } = await import('node:stream');
  const trackId = await oneId(flags.trackId, 'track');
  const formatId = flags.format !== undefined ? parseIntegerId(flags.format, 'format') : undefined;
  const deadlineMs = downloadDeadlineMs(flags.downloadTimeout);
  const clobber = Boolean(flags.clobber);
  const g = ctx.globals;
  let dest = flags.outputFile;
  // an empty name failed only after the download was used up (no file can be linked to '')
  if (dest !== undefined && dest.trim() === '') throw new UsageError('-O needs a file name, got an empty one', "use -O - for standard output");
  if (dest === undefined && (g.output as string | undefined) === '-') dest = '-';
  else if (g.output !== undefined && (g.output as string) !== '-') {
    throw new UsageError(`locker download writes a file, not a '${g.output}' listing`, 'use -O FILE, or -o - for standard output');
  }
  if (dest === '-' && ctx.io.stdout.isTTY) {
    throw new UsageError('refusing to write audio to a terminal', 'redirect standard output, or use -O FILE');
  }
  if (dest !== undefined && dest !== '-') await checkTarget(dest, clobber);
  const s = await userSession(ctx, flags);
  const hit = await locateTrack(s, trackId);
  const { lr, lt } = hit;
  const title = lt.track?.title ?? `track ${trackId}`;
  if (lr.available === false) {
    throw new McatError(`track ${trackId} (${title}) cannot be downloaded: its release is no longer available`);
  }
  if (lt.remainingDownloads === 0) {
    const e = new McatError(`track ${trackId} (${title}) has no downloads left (0 remaining)`);
    e.hint = 'streaming stays possible: mcat locker stream-check ' + trackId;
    throw e;
  }
  const urls: DownloadUrl[] = Array.isArray(lt.downloadUrls?.downloadUrl) ? lt.downloadUrls.downloadUrl : [];
  const chosen = formatId !== undefined ? urls.find((u) => Number(u?.format?.id) === formatId) : urls[0];
  if (formatId !== undefined && !chosen) {
    const offered = urls.map((u) => `${u?.format?.id} (${u?.format?.description})`).join(', ') || 'none';
    throw new UsageError(`format ${formatId} is not offered for track ${trackId}; offered: ${offered}`);
  }
  const fmt = chosen?.format;
  const ext = /flac/i.test(fmt?.description ?? '') ? 'flac' : /aac|mp4|m4a/i.test(fmt?.description ?? '') ? 'm4a' : 'mp3';
  const artist = lt.track?.artist?.appearsAs ?? lt.track?.artist?.name ?? lr.release?.artist?.name ?? '';
  const target = dest ?? `${safeFileName(`${artist ? artist + ' - ' : ''}${title}`, 'track')}.${ext}`;
  // the default name is known only now: still before the request that uses up a download
  if (dest === undefined) await checkTarget(target, clobber);
  if (flags.dryRun) {
    const left = typeof lt.remainingDownloads === 'number' ? `; ${lt.remainingDownloads} download${lt.remainingDownloads === 1 ? '' : 's'} left now, ${lt.remainingDownloads - 1} after` : '';
    say(`mcat: dry run: would download track ${trackId} (${title}) as ${fmt?.description ?? 'the first format'} to ${target === '-' ? 'standard output' : target}${left}; nothing was downloaded`);
    return;
  }

  const { downloadTrack } = await import('../../../client/media');
  const signal = ctx.signal;
  const part = target === '-' ? undefined : await PartFile.create(target);
  let bar: ReturnType<typeof progressBar> | undefined;
  let total: number;
  try {
    const res = await downloadTrack(s.client, trackId, { formatId: fmt?.id !== undefined ? Number(fmt.id) : formatId, signal, deadlineMs });
    total = Number(res.headers['content-length'] ?? 0);
    const shown = (bar = progressBar(total, title));
    let got = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        got += chunk.length;
        shown.tick(chunk.length);
        cb(null, chunk);
      },
    });
    // no file is an empty file (a 204, a 200 with nothing in it): not saved, and not "saved"
    const empty = () => new ResponseError(`the service sent no file for track ${trackId} (${title}): the answer was empty`, res.status);
    if (part) {
      await part.fill(res.body, [counter], signal);
      if (got === 0) throw empty();
      await part.commit(clobber);
    } else {
      await pipeToStdout(res.body, counter, { signal });
      if (got === 0) throw empty();
    }
  } catch (e) {
    await part?.discard();
    bar?.done();
    if (signal.aborted) {
      throw new InterruptedError(`interrupted: the download of track ${trackId} was stopped${part ? '; no file was left behind' : ''}`);
    }
    throw explainMedia(e, trackId, title);
  }
  bar?.done();
  const left = await downloadsLeftAfter(ctx, s, trackId, hit);
  if (part) notice(`mcat: saved ${target}${total ? ` (${total} bytes)` : ''}; ${left}`);
  // a reader that went away ends the run quietly (the download was used all the same: recorded)
  else if (!stdoutClosed()) notice(`mcat: downloaded track ${trackId} to standard output; ${left}`);
}

function explainMedia(e: unknown, trackId: number, title: string): unknown {
  // an API error of its own (2002: a country the key is not entitled to, exit 4) is said as such
  if (e instanceof HttpError || (e instanceof ApiError && e.code !== 2002)) {
    if (e.httpStatus === 403) return new McatError(`track ${trackId} (${title}) has no downloads left (HTTP 403)`);
    if (e.httpStatus === 410) return new McatError(`track ${trackId} (${title}) is no longer available: its release was withdrawn (HTTP 410)`);
  }
  return e;
}

function progressBar(total: number, label: string): { tick(n: number): void; done(): void } {
  const line = progressLine();
  const tty = line.active;
  let got = 0;
  let last = 0;
  const draw = () => {
    const width = 30;
    const frac = total ? Math.min(1, got / total) : 0;
    const bar = total ? '█'.repeat(Math.round(frac * width)).padEnd(width, '░') : '';
    const pct = total ? `${Math.round(frac * 100)}%` : `${got} bytes`;
    line.show(`${cut(clean(label, 'line'), 30)} ${bar} ${pct}`); // 30 cells of the title, whole clusters
  };
  return {
    tick(n) {
      got += n;
      if (!tty) return;
      const now = Date.now();
      if (now - last > 50 || (total && got >= total)) {
        last = now;
        draw();
      }
    },
    done() {
      if (tty && got) {
        draw();
        line.end();
      }
    },
  };
}

