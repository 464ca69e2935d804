// `mcat api`: the escape hatch. Signed like every other call, retried only when safe, the body
// written as received into a pipe or a file (its bytes: binary, control characters and all); on a
// terminal, text cleaned (JSON pretty-printed) and a binary body said, not shown.
import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import { McatError } from '../../../client/errors';
import { isMediaType } from '../../../client/media-type';
import { decodeUtf8 } from '../../../client/utf8';
import { noteUserScope, UsageError } from '../../errors';
import { readTextInput } from '../../ids';
import { downloadDeadlineMs, formatNamed, say, session } from '../../context';
import { pipeToStdout, print, printRaw } from '../../../output/streams';
import { defineCommand, type CommandContext } from '../../command';
import { METHODS, type ApiFlags } from './index';

type Method = (typeof METHODS)[number];

/**
 * A non-2xx answer, its body already printed. `answer`: the typed error the body stands for (an
 * API error with its code, an OAuth refusal), which the message line is made from; the exit code
 * stays the status's (4 for 401 and 403, else 1), as the help says.
 */
export class HttpStatusError extends McatError {
  override name = 'HttpStatusError';
  constructor(
    readonly httpStatus: number,
    readonly answer?: Error,
  ) {
    super(`the API answered HTTP ${httpStatus}`);
  }
}

export function parseFields(fields: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const f of fields) {
    const i = f.indexOf('=');
    if (i <= 0) throw new UsageError(`-f expects key=value, got '${f}'`);
    (out[f.slice(0, i)] ??= []).push(f.slice(i + 1));
  }
  return out;
}

export default defineCommand<ApiFlags>({
  name: 'request',
  description: 'a signed request to any path of the API',
  groupDefault: true,
  json: true,
  run: runApi,
});

async function runApi(flags: ApiFlags, ctx: CommandContext): Promise<void> {
  const { method: methodArg, path: pathArg } = flags;
  const method = methodArg.toUpperCase() as Method;
  const jq = ctx.globals.jq;
  if (jq !== undefined && (flags.xml || flags.include)) throw new UsageError(`--jq reads a JSON body: it does not go with ${flags.xml ? '--xml' : '--include'}`);
  // the body is printed as received: -o csv, tsv, ndjson or xml printed that same JSON body
  const format = formatNamed(ctx);
  // -o json and --json promise one JSON document: with --xml the XML body was printed under them
  const asJson = format === 'json' ? '-o json' : ctx.globals.json !== undefined ? '--json' : undefined;
  if (flags.xml && asJson) throw new UsageError(`--xml asks the service for XML: it does not go with ${asJson}`, `leave out --xml for the JSON body, or ${asJson} for the XML`);
  if (format !== undefined && format !== 'json' && format !== 'table' && !(format === 'ndjson' && jq !== undefined)) {
    throw new UsageError(`mcat api prints the body as received, not ${format}`, format === 'xml' ? 'ask for XML with --xml' : 'use --jq to reshape its JSON');
  }
  if (!METHODS.includes(method)) throw new UsageError(`unknown HTTP method '${methodArg}'`, `use one of ${METHODS.join(', ')}`);
  if (!pathArg.startsWith('/')) throw new UsageError(`the path must start with '/', got '${pathArg}'`);
  const fields = parseFields(flags.field ?? []);
  const tty = Boolean(ctx.io.stdout.isTTY);
  const deadlineMs = downloadDeadlineMs();
  let json: unknown;
  if (flags.input !== undefined) {
    const text = await readTextInput(flags.input);
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new UsageError(`${flags.input === '-' ? 'standard input' : flags.input} is not valid JSON: ${(e as Error).message}`);
    }
  }
  const url = new URL(pathArg, 'http://x');
  // a name the path repeats is sent repeated, every value signed (not the last one alone)
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const had = query[k];
    query[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
  }
  const bodyInQuery = method === 'GET' || method === 'DELETE' || json !== undefined;
  let form: Record<string, string | string[]> | undefined;
  if (bodyInQuery) for (const [k, v] of Object.entries(fields)) query[k] = v.join(',');
  else if (Object.keys(fields).length) form = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.length === 1 ? v[0] : v]));

  const hasCountry = Object.keys(query).some((k) => k.toLowerCase() === 'country') || Object.keys(form ?? {}).some((k) => k.toLowerCase() === 'country');
  const addCountry = flags.autoCountry !== false && !hasCountry;
  // a request that carries its country (or asks for none) needs none from the profile
  const s = await session(ctx, addCountry ? {} : { countryOptional: true });
  noteUserScope({ noTokenFlag: true });
  // whose data it asks for (a userId parameter): an "access denied" then names that user, as the
  // playlist and group commands' do, and its hint says how to read that user's data
  const asked = Object.entries({ ...query, ...form }).find(([k]) => k.toLowerCase() === 'userid')?.[1];
  if (typeof asked === 'string' && /^\d+$/.test(asked.trim())) noteUserScope({ requestedUser: asked.trim() });
  if (addCountry) query.country = s.country;

  const req = {
    method,
    path: url.pathname,
    query,
    json,
    form,
    accept: flags.xml ? ('xml' as const) : ('json' as const),
    auth: flags.consumerOnly ? ('consumer' as const) : undefined,
    throwOnHttpError: false,
  };
  // --jq reads the JSON whole; otherwise a media file (a track's stream) comes as a stream, past
  // the cap on bodies read into memory, within the download deadline, as locker download's does
  const got = jq !== undefined ? await s.client.requestRaw(req) : await s.client.requestRawOrMedia({ ...req, deadlineMs });
  // what the request carried (the credentials, its signature), where the answer quotes it back:
  // masked in the headers, and in the body of an answer that is not a success (a server's error
  // that echoes the request); a success's body is printed as received (masking it would cost a
  // scan of up to --max-body, for a quote the service never makes)
  const clean = (text: string): string => (got.scrub ? got.scrub(text) : text);
  const type = got.headers['content-type'];
  if (flags.include) {
    let head = `HTTP ${got.status}\n`;
    for (const [k, v] of Object.entries(got.headers)) head += `${k}: ${clean(v)}\n`;
    await print(head + '\n');
  }
  if (!('text' in got)) {
    // a 2xx media file: its bytes into the pipe or file, or on a terminal said, not shown
    if (!tty) return pipeToStdout(got.body);
    return sayBinary(await sizeOf(got.body, got.contentLength), clean(type ?? ''));
  }
  const res = got;
  const ok = res.status >= 200 && res.status < 300;
  // the bytes before any text is read (text is their decoding: invalid UTF-8 lost)
  const bytes = ok ? res.bytes() : maskedBytes(res.bytes(), clean);
  // a redirect is reported below as for any answer (never followed)
  if (jq !== undefined && res.status < 300) {
    let doc: unknown;
    try {
      doc = JSON.parse(res.body);
    } catch {
      throw new McatError(`--jq: the answer is not JSON (${type ?? 'no content type'})`);
    }
    const { printJson } = await import('../../json-out');
    await printJson(ctx, doc);
    return;
  }
  if (!tty) {
    // into a pipe or a file: the bytes as received, nothing cleaned or added
    await printRaw(bytes);
  } else if (isMediaType(type) || bytes.includes(0) || !isUtf8(bytes)) {
    sayBinary(bytes.length, clean(type ?? ''));
  } else {
    let body = decodeUtf8(bytes);
    if (/json/i.test(type ?? '')) {
      try {
        body = JSON.stringify(JSON.parse(body), null, 2);
      } catch {
        // not JSON after all: print as received
      }
    }
    // XML keeps its values (C1 as character references); anything else is text
    const mode = /xml/i.test(type ?? '') ? 'xml' : 'text';
    if (body) await print(body.endsWith('\n') ? body : body + '\n', mode);
  }
  // a redirect is the error the request core makes of it (its Location masked as any message's)
  const answer = ok ? undefined : await s.client.errorOf(res);
  if (res.status >= 300 && res.status < 400 && answer) throw answer;
  if (!ok) throw new HttpStatusError(res.status, answer);
}

/** A body's bytes with what the request carried masked (masked as text: UTF-8, else byte for byte as Latin-1). */
function maskedBytes(bytes: Buffer, mask: (text: string) => string): Buffer {
  const utf8 = isUtf8(bytes);
  const text = bytes.toString(utf8 ? 'utf8' : 'latin1');
  const masked = mask(text);
  return masked === text ? bytes : Buffer.from(masked, utf8 ? 'utf8' : 'latin1');
}

/** A streamed body's size: its Content-Length (the rest unread), else its bytes counted as they come. */
async function sizeOf(body: Readable, declared: number | undefined): Promise<number> {
  if (declared !== undefined) {
    body.on('error', () => undefined);
    body.destroy();
    return declared;
  }
  let n = 0;
  for await (const chunk of body) n += (chunk as Buffer).length;
  return n;
}

/** A binary body on a terminal: one line instead of its bytes (bytes that could set the terminal's modes). */
function sayBinary(size: number, type: string): void {
  const shown = type === '' ? 'no content type' : type.length > 60 ? `${type.slice(0, 59)}…` : type;
  say(`mcat: the body is binary (${size} bytes, ${shown}): not shown on a terminal; redirect standard output to a file (> FILE)`);
}
