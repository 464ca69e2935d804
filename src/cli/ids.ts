// Id lists from arguments, a file or stdin: space-, comma- or newline-separated; blank lines
// and # comments ignored. Every id is checked before anything is sent.
import { UsageError } from './errors';
import { runContext } from './lifecycle';

export function splitIdList(text: string): string[] {
  const body = text.replace(/^\uFEFF/, '');
  // no comment in it (the common file): line ends are separators like the others, one split does
  // (a regex replace and a split per line cost ~1 µs an id, 5 ms of a 5,000-id run)
  if (!body.includes('#')) return body.split(/[\s,]+/).filter((tok) => tok !== '');
  const out: string[] = [];
  for (const rawLine of body.split(/\r?\n/)) {
    const line = rawLine.replace(/#.*$/, '');
    for (const tok of line.split(/[\s,]+/)) if (tok) out.push(tok);
  }
  return out;
}

// 100 calls of 500: beyond that a run is a mistake more often than a plan, and would hammer the service.
export const MAX_IDS = 50_000;

/** The largest int32: the spec types artistid, page, pagesize and image width as int32. */
export const INT32_MAX = 2147483647;

/**
 * Positive integer ids (catalogue entities), at most `max` (an int32 parameter of the spec:
 * INT32_MAX). Throws one UsageError naming the bad ones.
 */
export function parseIntegerIds(tokens: string[], what: string, source?: string, max = Number.MAX_SAFE_INTEGER): number[] {
  const bad: string[] = [];
  const ids: number[] = [];
  for (const t of tokens) {
    if (/^[1-9]\d{0,15}$/.test(t) && Number.isSafeInteger(Number(t)) && Number(t) <= max) ids.push(Number(t));
    else bad.push(t);
  }
  if (bad.length) {
    const shown = bad.slice(0, 5).map((b) => `'${printable(b)}'`).join(', ');
    const more = bad.length > 5 ? ` and ${bad.length - 5} more` : '';
    // whole numbers past an int32 parameter's bound say that bound; anything else what an id is
    const rule = max < Number.MAX_SAFE_INTEGER && bad.every((b) => /^[1-9]\d*$/.test(b)) ? `${what} ids are at most ${max}` : 'ids are positive whole numbers';
    throw new UsageError(`invalid ${what} id${bad.length > 1 ? 's' : ''}${source ? ` in ${source}:` : ''} ${shown}${more} (${rule})`);
  }
  return ids;
}

export function parseIntegerId(value: string, what: string, max?: number): number {
  return parseIntegerIds([value.trim()], what, undefined, max)[0];
}

function printable(s: string): string {
  const cut = s.length > 30 ? s.slice(0, 30) + '…' : s;
  return cut.replace(/[^\x20-\x7e\u00a0-\uffff]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * The most mcat reads from standard input, a pipe or a device for a text input (ids, a
 * description, a body): one that never ends (`/dev/zero`, `yes |`) is refused at this size rather
 * than read until memory runs out. A regular file's size is known; it is read as it is.
 */
export const MAX_STREAMED_TEXT = 64 * 1024 * 1024;
/** The same for a file of playlists or edits (replace --from, apply): an export of a big account fits. */
export const MAX_STREAMED_EDITS = 256 * 1024 * 1024;

const mib = (n: number) => `${Math.round(n / (1024 * 1024))} MiB`;

/** Everything a stream gives, refused (a usage error: nothing was sent) past `max` bytes. */
export async function readBounded(source: AsyncIterable<unknown>, name: string, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  // (leaving the loop early closes the stream: a writer into the pipe then ends)
  for await (const c of source) {
    const chunk = typeof c === 'string' ? Buffer.from(c) : (c as Buffer);
    size += chunk.length;
    if (size > max) {
      throw new UsageError(`${name} goes on past ${mib(max)}, the most mcat reads from a pipe or a device; nothing was sent`, 'is it the input you meant? a longer one can be given as a regular file');
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** A file that is not a regular one (a pipe, `<(…)`, a device), read as a stream, bounded. */
async function readNonRegular(file: string, max: number): Promise<Buffer> {
  const { createReadStream } = await import('node:fs');
  return readBounded(createReadStream(file), file, max);
}

/** Whether `file` is a regular file (else a pipe, a device, a folder, or nothing: read as a stream, which says which). */
async function isRegularFile(file: string): Promise<boolean> {
  const { statSync } = await import('node:fs');
  return statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
}

export async function readTextInput(file: string, max = MAX_STREAMED_TEXT): Promise<string> {
  let buf: Buffer;
  try {
    // fs/promises (with the readline it loads) only when there is a file: every read runs this module
    if (file === '-') buf = await readStdin(max);
    else if (await isRegularFile(file)) buf = await (await import('node:fs/promises')).readFile(file);
    else buf = await readNonRegular(file, max);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const err = e as NodeJS.ErrnoException;
    throw new UsageError(`cannot read ${file === '-' ? 'standard input' : file}: ${err.code === 'ENOENT' ? 'no such file' : err.code === 'EISDIR' ? 'is a directory' : err.message}`);
  }
  const text = new TextDecoder('utf-8', { fatal: false }).decode(buf);
  if (text.includes('\u0000') || text.includes('\ufffd')) {
    throw new UsageError(`${file === '-' ? 'standard input' : file} is not UTF-8 text`);
  }
  return text;
}

export async function readStdin(max = MAX_STREAMED_TEXT): Promise<Buffer> {
  if (runContext().io.stdin.isTTY) throw new UsageError("'-' reads from standard input, but it is a terminal", 'pipe the input in, e.g. cat ids.txt | mcat …');
  return readBounded(runContext().io.stdin, 'standard input', max);
}

/** A file of playlists or edits: a regular file as it is, anything else bounded by MAX_STREAMED_EDITS. */
export async function readEditsInput(file: string): Promise<Buffer> {
  if (file === '-') return readStdin(MAX_STREAMED_EDITS);
  return readNonRegular(file, MAX_STREAMED_EDITS);
}

/** Ids from positional arguments (where '-' means stdin) and --ids-file. */
export async function collectIds(args: string[], idsFile: string | undefined, what: string): Promise<number[]> {
  const tokens: string[] = [];
  let source: string | undefined;
  for (const a of args) {
    if (a === '-') {
      tokens.push(...splitIdList(await readTextInput('-')));
      source = 'standard input';
    } else tokens.push(...splitIdList(a));
  }
  if (idsFile !== undefined) {
    tokens.push(...splitIdList(await readTextInput(idsFile)));
    source = idsFile === '-' ? 'standard input' : idsFile;
  }
  if (tokens.length === 0) {
    throw new UsageError(`no ${what} ids given`, `pass ids as arguments, with --ids-file FILE, or '-' to read standard input`);
  }
  if (tokens.length > MAX_IDS) throw new UsageError(`too many ${what} ids: ${tokens.length} (at most ${MAX_IDS} in one run)`);
  return parseIntegerIds(tokens, what, source);
}
