// Which content types are files, not text: what `mcat api` streams (no cap, as a download) and
// never shows on a terminal. The API's own answers are JSON, XML, HTML pages and plain text.

/** audio, video, images (not SVG: XML), fonts and the generic binary types */
const MEDIA_TYPE = /^\s*(?:(?:audio|video|font)\/|image\/(?!svg)|application\/(?:octet-stream|ogg|zip|gzip|x-tar|pdf|mp4|x-flac|flac)\s*(?:;|$))/i;

export function isMediaType(contentType: string | undefined): boolean {
  return contentType !== undefined && MEDIA_TYPE.test(contentType);
}
