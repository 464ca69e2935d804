// The work behind `mcat locker`, `locker download` and `locker stream-check`.
import type { Command } from 'commander';
import { Transform } from 'node:stream';
import { ApiError, HttpError, McatError } from '../../client/errors';
import { UsageError } from '../errors';
import { paginate, setPath, type PageFetcher, type PaginateOptions } from '../../client/paging';
import { about, flagOrEnv, globalsOf, intOption, notice, ofUser, output, outputFormat, progressLine, say, type Session } from '../context';
import { parseIntegerId } from '../ids';
import { userSession } from '../user-token';
import { checkPaging, listInfo } from '../listing';
import { lockerReleasesOf, lockerTracksOf, lockerView, noDownloadsLeft } from '../views/locker';
import { LOCKER_SORT_FIELDS, type DownloadFlags, type LockerFlags } from './locker';
import { findTrack as findInLocker, remainingNow, type TrackHit } from '../locker-walk';
import { LOCKER_LIST_PATH, LOCKER_PAGING_PATH, lockerReleaseKey } from '../../client/locker';
import { recordDownload } from '../download-log';
import { interruptSignal } from '../lifecycle';
import { pipeToStdout, print, stdoutClosed } from '../../output/streams';
import { InterruptedError } from '../errors';
import { checkTarget, PartFile } from '../part-file';

/* eslint-disable @typescript-eslint/no-explicit-any */

export function parseSort(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const m = /^([A-Za-z]+)(?::(asc|desc))?$/i.exec(value.trim());
  const field = m && LOCKER_SORT_FIELDS.find((f) => f.toLowerCase() === m[1].toLowerCase());
  if (!m || !field) {
    throw new UsageError(`--sort must be ${LOCKER_SORT_FIELDS.join('|')} with an optional :asc or :desc, got '${value}'`);
  }
  return `${field} ${(m[2] ?? (field === 'purchaseDate' ? 'desc' : 'asc')).toLowerCase()}`;
}

export interface LockerFilter {
  active: boolean;
  apply(lr: any): any | undefined;
}

export function lockerFilter(flags: LockerFlags): LockerFilter {
  if (flags.available && flags.unavailable) throw new UsageError('--available and --unavailable exclude each other');
  const releaseId = flags.release !== undefined ? parseIntegerId(flags.release, 'release') : undefined;
  const trackId = flags.track !== undefined ? parseIntegerId(flags.track, 'track') : undefined;
  let since: number | undefined;
  if (flags.purchasedSince !== undefined) {
    const v = flags.purchasedSince.trim();
    since = /^\d{4}-\d{2}-\d{2}/.test(v) ? Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v) : NaN;
    if (!Number.isFinite(since)) throw new UsageError(`--purchased-since must be a date like 2024-01-31, got '${flags.purchasedSince}'`);
  }
  const noneLeft = flags.downloadsLeft === false;
  const trackLevel = trackId !== undefined || since !== undefined || noneLeft;
  const active = Boolean(flags.available || flags.unavailable || releaseId !== undefined || trackLevel);
  return {
    active,
    apply(lr: any) {
      if (flags.available && lr.available === false) return undefined;
      if (flags.unavailable && lr.available !== false) return undefined;
      if (releaseId !== undefined && Number(lr.release?.id) !== releaseId) return undefined;
      if (!trackLevel) return lr;
      const tracks = lockerTracksOf(lr).filter((lt: any) => {
        if (trackId !== undefined && Number(lt.track?.id) !== trackId) return false;
        if (since !== undefined && !(Date.parse(lt.purchaseDate) >= since)) return false;
        if (noneLeft && !noDownloadsLeft(lt, lr)) return false;
        return true;
      });
      if (tracks.length === 0) return undefined;
      return { ...lr, lockerTracks: { ...lr.lockerTracks, lockerTrack: tracks } };
    },
  };
}

const LIST = LOCKER_LIST_PATH;
const PAGING = LOCKER_PAGING_PATH;

/** The locker listing's walk (--all, --limit) with the session's page cap and Ctrl-C; through paginate(), so its stop rules hold. (The whole-locker walk of summary/find/check is client/locker.ts lockerPages.) */
function walkLocker<T>(s: Session, fetchPage: PageFetcher<T>, o: Omit<PaginateOptions<T>, 'what' | 'maxPages' | 'signal'>): AsyncGenerator<T> {
  return paginate(fetchPage, { listPath: LIST, pagingPath: PAGING, key: o.items ? undefined : lockerReleaseKey, ...o, what: 'the locker', maxPages: s.client.maxPages, signal: interruptSignal() });
}

export async function runLocker(cmd: Command, flags: LockerFlags): Promise<void> {
  const paging = checkPaging(flags, 50);
  const sort = parseSort(flags.sort);
  const filter = lockerFilter(flags);
  const format = outputFormat(cmd);
  if (format === 'xml' && filter.active) {
    throw new UsageError('filters do not apply to -o xml, which prints the API\'s XML as received', 'use -o json or -o ndjson with filters');
  }
  const explicitPage = flags.page !== undefined;
  const walk = paging.all || paging.limit !== undefined || (filter.active && !explicitPage);
  const s = await userSession(cmd, flags);
  const locker = await import('../../client/locker');
  const out = await output(cmd);
  const pageSize = paging.pageSize ?? (walk ? 50 : 10);

  if (format === 'xml') {
    const { asXml, printXml, printXmlListing } = await import('../xml-output');
    const fetchXml = (page: number, signal?: AbortSignal) => locker.getLockerXml(s.client, { country: s.country, sort, page, pageSize, signal });
    if (!walk) return printXml(asXml(await fetchXml(paging.page)));
    const { xmlListOf } = await import('../../output/xml-pages');
    const list = xmlListOf(PAGING, LIST);
    return printXmlListing({ list, fetchPage: fetchXml, startPage: paging.page, pageSize, limit: paging.limit, what: 'the locker', maxPages: s.client.maxPages });
  }

  out.heading(about(s, `Locker of ${ofUser(s.userId)}`));
  // a filtered list is not one page of the service's list: no "Showing 1–10 of 14" for it
  if (!walk) {
    const body: any = await locker.getLocker(s.client, { country: s.country, sort, page: paging.page, pageSize });
    await out.document(body, lockerView, filter.active ? undefined : listInfo(PAGING, { walked: false }));
    return;
  }

  const limit = paging.limit;
  // the limit counts items after the filters, so it is applied here rather than by paginate()
  async function* pages(): AsyncGenerator<unknown> {
    let seen = 0;
    const fetchPage = (page: number, signal: AbortSignal) => locker.getLocker(s.client, { country: s.country, sort, page, pageSize, signal });
    for await (const body of walkLocker<any>(s, fetchPage, { startPage: paging.page, pageSize })) {
      const raw = lockerReleasesOf(body);
      let items = filter.active ? raw.map((lr) => filter.apply(lr)).filter(Boolean) : raw;
      const last = limit !== undefined && seen + items.length >= limit;
      if (last) items = items.slice(0, limit - seen);
      seen += items.length;
      setPath(body, LIST, items);
      yield body;
      if (last) return;
    }
  }
  const { mergePages } = await import('../../output/json');
  await out.streamPages(pages(), lockerView, {
    merge: (bodies: unknown[]) => {
      const merged: any = mergePages(bodies, { listPath: LIST, pagingPath: PAGING });
      if (filter.active) setPath(merged, `${PAGING}.totalItems`, lockerReleasesOf(merged).length);
      return merged;
    },
    list: filter.active ? undefined : listInfo(PAGING, { walked: true, limit }),
  });
}

async function locateTrack(s: Session, trackId: number): Promise<TrackHit> {
  const { hit, searched } = await findInLocker(s, trackId);
  if (hit) return hit;
  const e = new McatError(`track ${trackId} is not in ${s.userId ? `user ${s.userId}'s` : "this user's"} locker (${searched} releases searched)`);
  e.hint = 'look for it by title or ISRC: mcat locker find TEXT';
  throw e;
}

/** After a download: how many are left now (a fresh read of the track's page), recorded locally. */
async function downloadsLeftAfter(s: Session, trackId: number, hit: TrackHit): Promise<string> {
  const before = typeof hit.lt.remainingDownloads === 'number' ? hit.lt.remainingDownloads : undefined;
  let left: number | undefined;
  try {
    left = await remainingNow(s, trackId, hit);
  } catch {
    left = undefined; // the file is saved; the count is only information
  }
  left ??= before !== undefined ? Math.max(0, before - 1) : undefined;
  recordDownload({ at: new Date().toISOString(), account: s.account, trackId, left: left ?? null });
  if (left === undefined) return 'downloads left: not shown by the service';
  if (left === 0) return 'no downloads left now (streaming stays possible)';
  return `${left} download${left === 1 ? '' : 's'} left`;
}

function safeName(s: string): string {
  return s.replace(/[\\/:*?"<>|\u0000-\u001f\u007f-\u009f]+/g, '_').replace(/\s+/g, ' ').trim().slice(0, 120) || 'track';
}

/** The longest a whole download may take (MCAT_DOWNLOAD_TIMEOUT, --download-timeout), ms. */
export const DEFAULT_DOWNLOAD_TIMEOUT_MS = 10 * 60_000;

export async function runDownload(cmd: Command, trackIdArg: string, flags: DownloadFlags): Promise<void> {
  const trackId = parseIntegerId(trackIdArg, 'track');
  const formatId = flags.format !== undefined ? parseIntegerId(flags.format, 'format') : undefined;
  const deadline = flagOrEnv(flags.downloadTimeout, '--download-timeout', 'MCAT_DOWNLOAD_TIMEOUT');
  const deadlineMs = intOption(deadline.value, deadline.name, { min: 1 }) ?? DEFAULT_DOWNLOAD_TIMEOUT_MS;
  const clobber = Boolean(flags.clobber);
  const g = globalsOf(cmd);
  let dest = flags.outputFile;
  if (dest === undefined && (g.output as string | undefined) === '-') dest = '-';
  else if (g.output !== undefined && (g.output as string) !== '-') {
    throw new UsageError(`locker download writes a file, not a '${g.output}' listing`, 'use -O FILE, or -o - for standard output');
  }
  if (dest === '-' && process.stdout.isTTY) {
    throw new UsageError('refusing to write audio to a terminal', 'redirect standard output, or use -O FILE');
  }
  if (dest !== undefined && dest !== '-') await checkTarget(dest, clobber);
  const s = await userSession(cmd, flags);
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
  const urls: any[] = Array.isArray(lt.downloadUrls?.downloadUrl) ? lt.downloadUrls.downloadUrl : [];
  const chosen = formatId !== undefined ? urls.find((u) => Number(u?.format?.id) === formatId) : urls[0];
  if (formatId !== undefined && !chosen) {
    const offered = urls.map((u) => `${u?.format?.id} (${u?.format?.description})`).join(', ') || 'none';
    throw new UsageError(`format ${formatId} is not offered for track ${trackId}; offered: ${offered}`);
  }
  const fmt = chosen?.format;
  const ext = /flac/i.test(fmt?.description ?? '') ? 'flac' : /aac|mp4|m4a/i.test(fmt?.description ?? '') ? 'm4a' : 'mp3';
  const artist = lt.track?.artist?.appearsAs ?? lt.track?.artist?.name ?? lr.release?.artist?.name ?? '';
  const target = dest ?? `${safeName(`${artist ? artist + ' - ' : ''}${title}`)}.${ext}`;
  // the default name is known only now: still before the request that uses up a download
  if (dest === undefined) await checkTarget(target, clobber);
  if (flags.dryRun) {
    const left = typeof lt.remainingDownloads === 'number' ? `; ${lt.remainingDownloads} download${lt.remainingDownloads === 1 ? '' : 's'} left now, ${lt.remainingDownloads - 1} after` : '';
    say(`mcat: dry run: would download track ${trackId} (${title}) as ${fmt?.description ?? 'the first format'} to ${target === '-' ? 'standard output' : target}${left}; nothing was downloaded`);
    return;
  }

  const { downloadTrack } = await import('../../client/media');
  const signal = interruptSignal();
  const part = target === '-' ? undefined : await PartFile.create(target);
  let bar: ReturnType<typeof progressBar> | undefined;
  let total: number;
  try {
    const res = await downloadTrack(s.client, trackId, { formatId: fmt?.id !== undefined ? Number(fmt.id) : formatId, signal, deadlineMs });
    total = Number(res.headers['content-length'] ?? 0);
    const shown = (bar = progressBar(total, title));
    const counter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        shown.tick(chunk.length);
        cb(null, chunk);
      },
    });
    if (part) {
      await part.fill(res.body, [counter], signal);
      await part.commit(clobber);
    } else {
      await pipeToStdout(res.body, counter, { signal });
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
  const left = await downloadsLeftAfter(s, trackId, hit);
  if (part) notice(`mcat: saved ${target}${total ? ` (${total} bytes)` : ''}; ${left}`);
  // a reader that went away ends the run quietly (the download was used all the same: recorded)
  else if (!stdoutClosed()) notice(`mcat: downloaded track ${trackId} to standard output; ${left}`);
}

function explainMedia(e: unknown, trackId: number, title: string): unknown {
  if (e instanceof HttpError || e instanceof ApiError) {
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
    line.show(`${label.slice(0, 30)} ${bar} ${pct}`);
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

export async function runStreamCheck(cmd: Command, trackIdArg: string, flags: { userTokenFromStdin?: boolean }): Promise<void> {
  const trackId = parseIntegerId(trackIdArg, 'track');
  const s = await userSession(cmd, flags);
  const { streamCheck } = await import('../../client/media');
  let r;
  try {
    r = await streamCheck(s.client, trackId);
  } catch (e) {
    if ((e instanceof HttpError || e instanceof ApiError) && e.httpStatus === 410) {
      throw new McatError(`track ${trackId} cannot be streamed: its release is no longer available (HTTP 410)`);
    }
    throw e;
  }
  const result = { trackId, streamable: true, status: r.status, contentType: r.contentType, contentLength: r.contentLength };
  const format = outputFormat(cmd);
  if (format === 'table') {
    await print(`track ${trackId}: streamable (${r.contentType ?? 'audio'}${r.contentLength ? `, ${r.contentLength} bytes` : ''}); remaining downloads unchanged\n`);
  } else {
    const out = await output(cmd);
    await out.document(result, { columns: [{ key: 'trackId', header: 'Track' }, { key: 'streamable', header: 'Streamable' }, { key: 'contentType', header: 'Type' }], items: (b: any) => [b] });
  }
}
