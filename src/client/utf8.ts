// A body's bytes as text, in a module of its own: the transport decodes with it, and so do the
// locker walk's worker threads (src/cli/locker-worker.ts), which load no transport.

/** as undici's text(): UTF-8, a leading BOM dropped */
const utf8 = new TextDecoder('utf-8');
export const decodeUtf8 = (bytes: Uint8Array): string => utf8.decode(bytes);
