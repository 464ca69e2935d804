// Media delivery: downloads count against remainingDownloads (atomically, in SQLite);
// streams never do. Failures are short HTML pages, as the real service sends.
import { ACCESS_DENIED, OAuthFailure } from '../auth';
import { authenticate, country, HtmlFail, param, type Ctx, type Reply } from '../http';
import { escapeXml } from '../render-xml';

export function htmlPage(status: number, title: string): Reply {
  const body = `<!DOCTYPE html>\n<html><head><title>${escapeXml(title)}</title></head><body><h1>${status}</h1><p>${escapeXml(title)}</p></body></html>\n`;
  return { status, headers: { 'content-type': 'text/html; charset=utf-8' }, body: Buffer.from(body) };
}

/** A small, valid-looking MP3 body: an ID3v2 header naming the track, then silent frames. */
function audioBody(trackId: number, formatId: number): Buffer {
  const title = Buffer.from(`mcat sandbox track ${trackId} format ${formatId}`, 'latin1');
  const frame = Buffer.concat([Buffer.from('TIT2'), u32(title.length + 1), Buffer.from([0, 0, 0]), title]);
  const size = frame.length;
  const header = Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, (size >> 21) & 0x7f, (size >> 14) & 0x7f, (size >> 7) & 0x7f, size & 0x7f]);
  const silent = Buffer.alloc(417 * 8);
  for (let i = 0; i < 8; i++) silent.set([0xff, 0xfb, 0x90, 0x64], i * 417);
  return Buffer.concat([header, frame, silent]);
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

export function media(ctx: Ctx, kind: 'download' | 'stream', idText: string): Reply {
  const auth = authenticate(ctx, { user: true });
  const user = auth.user!;
  const userId = param(ctx, 'userId');
  // a 401 is the real service's OAuth refusal (text/plain), here as on every other endpoint
  if (userId !== undefined && userId.trim() !== '' && userId.trim() !== user.userId) throw new OAuthFailure(ACCESS_DENIED);
  // the locker's downloadUrls carry no country; one given is held to the key's entitlements as on
  // every other endpoint (api-decisions.md: 403, API error 2002)
  const c = param(ctx, 'country');
  if (c !== undefined && c.trim() !== '') country(ctx, auth);
  if (!/^\d+$/.test(idText) || Number(idText) < 1) throw new HtmlFail(400, 'Invalid track id');
  const trackId = Number(idText);
  const locker = ctx.demo.locker(user.userId);
  const index = locker.entryOfTrack(trackId);
  if (index === undefined) throw new HtmlFail(404, 'This track is not in your locker');
  const entry = locker.entry(index);
  const release = ctx.demo.release(entry.releaseId)!;
  if (!ctx.demo.inCatalogue(release)) throw new HtmlFail(410, 'This release is no longer available');
  const formats = release.packages[0].formats;
  const f = param(ctx, 'formatId');
  let formatId = formats[0].id;
  if (f !== undefined && f.trim() !== '') {
    if (!/^\d+$/.test(f.trim()) || !formats.some((x) => x.id === Number(f.trim()))) throw new HtmlFail(400, 'This format is not offered for this track');
    formatId = Number(f.trim());
  }
  if (kind === 'download' && !ctx.store.consumeDownload(user.userId, trackId, entry.initialDownloads(trackId))) {
    throw new HtmlFail(403, 'No downloads left for this track');
  }
  const body = audioBody(trackId, formatId);
  const headers: Record<string, string> = { 'content-type': 'audio/mpeg' };
  if (kind === 'download') headers['content-disposition'] = `attachment; filename="${trackId}.mp3"`;
  return { status: 200, headers, body };
}
