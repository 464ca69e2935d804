// Media delivery: a track's file (counts against remainingDownloads) and the stream check.
import type { Readable } from 'node:stream';
import { ResponseError } from './errors';
import type { ApiClient, StreamResponse } from './http';
import { interpret, xmlReady } from './interpret';

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
  await refuseNonMedia(res, 'download');
  return { status: res.status, headers: res.headers, body: res.body, contentLength: res.contentLength };
}

/** Whether a track streams: status and type of the stream, body discarded unread. */
export async function streamCheck(
  c: ApiClient,
  trackId: number,
): Promise<{ status: number; contentType?: string; contentLength?: number }> {
  const res = await c.requestStream('GET', streamPath(trackId), { auth: 'user', accept: '*/*', idempotent: true, what: 'stream' });
  await refuseNonMedia(res, 'stream');
  // Dropped unread: destroying an undici body emits an abort error nobody else listens for.
  res.body.on('error', () => undefined);
  res.body.destroy();
  return { status: res.status, contentType: res.headers['content-type'], contentLength: res.contentLength };
}


/** The API's own types and web pages: what a media endpoint sends in place of a file. */
const NOT_MEDIA = /^\s*(?:application\/(?:json|xml|xhtml\+xml|[\w.-]+\+(?:json|xml))|text\/(?:html|xml))\s*(?:;|$)/i;

/** The most of such an answer read to say what it was. */
const NOT_MEDIA_BYTES = 1024 * 1024;

/**
 * A 2xx answer that is the API's JSON or XML, or an HTML page, is not the file: the service may
 * send its error body with HTTP 200 (api-decisions.md), which is read and thrown as the error it
 * stands for; anything else of the kind is said as what it is. Either way it is never saved.
 */
async function refuseNonMedia(res: StreamResponse, what: string): Promise<void> {
  const type = res.headers['content-type'];
  if (type === undefined || !NOT_MEDIA.test(type)) return;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= NOT_MEDIA_BYTES) break;
    }
  } finally {
    res.body.on('error', () => undefined);
    res.body.destroy();
  }
  // what the request carried masked first, before any message quotes (and cuts) the answer
  const text = res.scrub(Buffer.concat(chunks).subarray(0, NOT_MEDIA_BYTES).toString('utf8'));
  const masked = res.scrub(type);
  const shown = (masked.length > 60 ? `${masked.slice(0, 59)}…` : masked).replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  if (text.trim() === '') throw new ResponseError(`${what}: the answer was empty (${shown}), not a media file`, res.status);
  await xmlReady({ text, headers: res.headers });
  interpret(res.status, res.headers, text, res.url, what);
  throw new ResponseError(`${what}: the service answered with ${shown}, not a media file`, res.status);
}
