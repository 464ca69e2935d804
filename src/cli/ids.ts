// Id lists from arguments, a file or stdin: space-, comma- or newline-separated; blank lines
// and # comments ignored. Every id is checked before anything is sent.
import { statSync } from 'node:fs';
import { constants as bufferConstants } from 'node:buffer';
import { UsageError } from './errors';
import { runContext, runEnv } from './lifecycle';

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

/**
 * The largest int32: the spec types artistid, page, pagesize and image width as int32, and the
 * service reads release and track ids as int32 too (a larger one is 1002 for the whole call: the
 * sandbox's catalogue routes, after the real service).
 */
export const INT32_MAX = 2147483647;

/**
 * Positive integer ids (catalogue entities), at most `max` (an int32 parameter of the spec:
 * INT32_MAX). Throws one UsageError naming the bad ones.
 */
export function parseIntegerIds(tokens: string[], what: string, source?: string, max = Number.MAX_SAFE_INTEGER, lineOf?: (token: string) => number | undefined): number[] {
  const bad: string[] = [];
  const ids: number[] = [];
  for (const t of tokens) {
    if (/^[1-9]\d{0,15}$/.test(t) && Number.isSafeInteger(Number(t)) && Number(t) <= max) ids.push(Number(t));
    else bad.push(t);
  }
  if (bad.length) {
    const shown = bad
      .slice(0, 5)
      .map((b) => {
        const line = lineOf?.(b);
        return `'${printable(b)}'${line === undefined ? '' : ` at line ${line}`}`;
      })
      .join(', ');
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

/** The one id of a command that takes one: as given, or read from standard input with '-' (CONVENTIONS.md: ids from stdin with -). */
export async function oneId(value: string, what: string, max?: number): Promise<number> {
  if (value.trim() !== '-') return parseIntegerId(value, what, max);
  const text = await readTextInput('-');
  const tokens = splitIdList(text);
  if (tokens.length !== 1) {
    throw new UsageError(`standard input holds ${tokens.length === 0 ? 'no' : tokens.length} ${what} ids; one was expected`, `give the ${what} id as the argument, or one on standard input`);
  }
  return parseIntegerIds(tokens, what, 'standard input', max, (t) => idLines(text).get(t))[0];
}

function printable(s: string): string {
  const cut = s.length > 30 ? s.slice(0, 30) + '…' : s;
  return cut.replace(/[^\x20-\x7e\u00a0-\uffff]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * The most mcat reads from standard input, a pipe or a device for a text input (ids, a
 * description, a body): one that never ends (`/dev/zero`, `yes |`) is refused at this size rather
 * than read until memory runs out. MCAT_MAX_INPUT sets another.
 */
export const MAX_STREAMED_TEXT = 64 * 1024 * 1024;
/** The same for a file of playlists or edits (replace --from, apply): an export of a big account fits. */
export const MAX_STREAMED_EDITS = 256 * 1024 * 1024;

/** What an input is: a text (ids, a description, a body) or a file of playlists or edits. */
export type InputKind = 'text' | 'edits';

interface Cap {
  bytes: number;
  /** the variable that set it */
  from?: string;
  /** the default bound of a pipe or a device (not the longest string) */
  streamed?: boolean;
}

/**
 * The most mcat reads from one input before it sends anything. The input becomes one string, and
 * V8 makes none longer than MAX_STRING_LENGTH (~512 MiB): a regular file is refused past it by its
 * size; a pipe or a device past MAX_STREAMED_*. MCAT_MAX_INPUT sets both (never past the string's).
 */
async function inputCap(kind: InputKind, streamed: boolean): Promise<Cap> {
  const v = runEnv().MCAT_MAX_INPUT;
  if (v !== undefined && v.trim() !== '') {
    const { sizeOption } = await import('./context');
    return { bytes: Math.min(sizeOption(v, 'MCAT_MAX_INPUT')!, bufferConstants.MAX_STRING_LENGTH), from: 'MCAT_MAX_INPUT' };
  }
  if (streamed) return { bytes: kind === 'edits' ? MAX_STREAMED_EDITS : MAX_STREAMED_TEXT, streamed: true };
  return { bytes: bufferConstants.MAX_STRING_LENGTH };
}

function sizeText(bytes: number): string {
  const mib = bytes / 2 ** 20;
  return mib >= 1 ? `${Math.round(mib)} MiB` : bytes >= 1024 ? `${Math.round(bytes / 1024)} KiB` : `${bytes} bytes`;
}

function tooLarge(name: string, cap: Cap): UsageError {
  if (cap.streamed) {
    return new UsageError(
      `${name} goes on past ${sizeText(cap.bytes)}, the most mcat reads from a pipe or a device; nothing was sent`,
      'is it the input you meant? a longer one can be given as a regular file (or MCAT_MAX_INPUT=SIZE)',
    );
  }
  return new UsageError(`${name} is larger than ${sizeText(cap.bytes)}, the most mcat reads from one input${cap.from ? ` (${cap.from})` : ''}`, 'split it into smaller files');
}

/** Reads a stream to its end, refusing it once it passes the cap (an endless pipe or device). */
async function readCapped(stream: AsyncIterable<unknown>, name: string, cap: Cap): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const c of stream) {
    const b = typeof c === 'string' ? Buffer.from(c) : (c as Buffer);
    total += b.length;
    if (total > cap.bytes) {
      (stream as { destroy?: () => void }).destroy?.();
      throw tooLarge(name, cap);
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks, total);
}

/**
 * The bytes of an input file ('-': standard input), whole, within the input cap: a regular file
 * is refused by its size before it is read; anything else (a pipe, <(…), a device) is read as a
 * stream and refused once past its cap. Read errors are usage errors naming the file.
 */
export async function readInputBytes(file: string, kind: InputKind = 'text', read?: (file: string) => Buffer | Promise<Buffer>): Promise<Buffer> {
  if (file === '-') return await readStdin(kind);
  // `--ids-file "$F"` with F unset: said as such, not "cannot read : no such file"
  if (file.trim() === '') throw new UsageError(`no file name given (an empty one)`, "name a file, or '-' for standard input");
  try {
    const st = statSync(file, { throwIfNoEntry: false });
    if (st?.isFile()) {
      const cap = await inputCap(kind, false);
      if (st.size > cap.bytes) throw tooLarge(file, cap);
      // fs/promises (with the readline it loads) only when there is a file: every read runs this module
      return read ? await read(file) : await (await import('node:fs/promises')).readFile(file);
    }
    if (st === undefined || st.isDirectory()) return read ? await read(file) : await (await import('node:fs/promises')).readFile(file);
    const { createReadStream } = await import('node:fs');
    return await readCapped(createReadStream(file), file, await inputCap(kind, true));
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const err = e as NodeJS.ErrnoException;
    throw new UsageError(`cannot read ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.code === 'EISDIR' ? 'is a directory' : err.message}`);
  }
}

export async function readTextInput(file: string, kind: InputKind = 'text'): Promise<string> {
  const buf = await readInputBytes(file, kind);
  const text = new TextDecoder('utf-8', { fatal: false }).decode(buf);
  if (text.includes('\u0000') || text.includes('\ufffd')) {
    throw new UsageError(`${file === '-' ? 'standard input' : file} is not UTF-8 text`);
  }
  return text;
}

export async function readStdin(kind: InputKind = 'text'): Promise<Buffer> {
  if (runContext().io.stdin.isTTY) throw new UsageError("'-' reads from standard input, but it is a terminal", 'pipe the input in, e.g. cat ids.txt | mcat …');
  try {
    return await readCapped(runContext().io.stdin, 'standard input', await inputCap(kind, true));
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`cannot read standard input: ${(e as Error).message}`);
  }
}

/** Ids from positional arguments (where '-' means stdin) and --ids-file. */
export async function collectIds(args: string[], idsFile: string | undefined, what: string, max?: number): Promise<number[]> {
  // each source apart: a bad id is named with where it came from (an argument, or the file or
  // standard input and its line), not with whichever source was read last; in the order given
  // (a batch prints its releases in request order)
  const sources: { tokens: string[]; source?: string; text?: string }[] = [];
  for (const a of args) {
    if (a === '-') {
      const text = await readTextInput('-');
      sources.push({ tokens: splitIdList(text), source: 'standard input', text });
      continue;
    }
    const last = sources[sources.length - 1];
    if (last && last.source === undefined) last.tokens.push(...splitIdList(a));
    else sources.push({ tokens: splitIdList(a) });
  }
  if (idsFile !== undefined) {
    const text = await readTextInput(idsFile);
    sources.push({ tokens: splitIdList(text), source: idsFile === '-' ? 'standard input' : idsFile, text });
  }
  const count = sources.reduce((n, g) => n + g.tokens.length, 0);
  if (count === 0) {
    throw new UsageError(`no ${what} ids given`, `pass ids as arguments, with --ids-file FILE, or '-' to read standard input`);
  }
  if (count > MAX_IDS) throw new UsageError(`too many ${what} ids: ${count} (at most ${MAX_IDS} in one run)`);
  const ids: number[] = [];
  for (const { tokens, source, text } of sources) {
    // a bad id read from a file or standard input is named with its line (CONVENTIONS.md: the file,
    // the line and what was expected); found only once one is bad, so a good list costs nothing more
    let lineIndex: Map<string, number> | undefined;
    const lines = text === undefined ? undefined : (token: string) => (lineIndex ??= idLines(text)).get(token);
    for (const id of parseIntegerIds(tokens, what, source, max, lines)) ids.push(id);
  }
  return ids;
}

/** The line (from 1) each id of an id list is first on, as splitIdList reads it. */
function idLines(text: string): Map<string, number> {
  const at = new Map<string, number>();
  for (const { id, line } of splitIdListLines(text)) if (!at.has(id)) at.set(id, line);
  return at;
}

/** splitIdList's ids, each with the line (from 1) it was read on. */
export function splitIdListLines(text: string): { id: string; line: number }[] {
  const out: { id: string; line: number }[] = [];
  text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .forEach((raw, i) => {
      for (const tok of raw.replace(/#.*$/, '').split(/[\s,]+/)) if (tok) out.push({ id: tok, line: i + 1 });
    });
  return out;
}
