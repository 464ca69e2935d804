// Media delivery: a track's file (counts against remainingDownloads) and the stream check.
import type { Readable } from 'node:stream';
import type { ApiClient } from './http';

export interface Download {
  status: number;
  headers: Record<string, string>;
  body: Readable;
  contentLength?: number;
}

export const downloadPath = (trackId: number) => `/media/download/${encodeURIComponent(String(trackId))}`;
export const streamPath = (trackId: number) => `/media/stream/${encodeURIComponent(String(trackId))}`;

/**
 * The file of one locker track, as a stream. A refused download (403: none left; 410: release
 * withdrawn) throws HttpError with the service's HTML page as its body. Never retried once
 * sent: each download that reaches the service uses one of the remaining downloads.
 */
export async function downloadTrack(
  c: ApiClient,
  trackId: number,
  o: { formatId?: number; signal?: AbortSignal; /** the whole transfer, ms */ deadlineMs?: number } = {},
): Promise<Download> {
  const res = await c.requestStream('GET', downloadPath(trackId), {
    query: { formatId: o.formatId },
    auth: 'user',
    accept: '*/*',
    idempotent: false,
    what: 'download',
    signal: o.signal,
    deadlineMs: o.deadlineMs,
  });
  return { status: res.status, headers: res.headers, body: res.body, contentLength: res.contentLength };
}

/** Whether a track streams: status and type of the stream, body discarded unread. */
export async function streamCheck(
  c: ApiClient,
  trackId: number,
): Promise<{ status: number; contentType?: string; contentLength?: number }> {
  const res = await c.requestStream('GET', streamPath(trackId), { auth: 'user', accept: '*/*', idempotent: true, what: 'stream' });
  // Dropped unread: destroying an undici body emits an abort error nobody else listens for.
  res.body.on('error', () => undefined);
  res.body.destroy();
  return { status: res.status, contentType: res.headers['content-type'], contentLength: res.contentLength };
}

