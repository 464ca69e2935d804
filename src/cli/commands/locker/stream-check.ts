// `mcat locker stream-check ID`: whether a purchased track can be streamed (uses no download).
import { ApiError, HttpError, McatError } from '../../../client/errors';
import { about, fieldsSpec, ofUser, output, outputFormat, printSheet, whoseLabel } from '../../context';
import { oneId } from '../../ids';
import { userSession, USER_TOKEN_OPTION, type UserTokenFlags } from '../../user-token';
import { defineCommand, type CommandContext } from '../../command';

export default defineCommand<UserTokenFlags & { trackId: string }>({
  name: 'stream-check',
  description: 'check that a purchased track can be streamed (never changes remaining downloads)',
  arguments: [{ name: '<trackId>', description: "track id ('-' reads it from standard input)" }],
  options: [USER_TOKEN_OPTION],
  examples: ['mcat locker stream-check 10000101'],
  json: true,
  ownFields: true,
  run: runStreamCheck,
});

async function runStreamCheck(flags: UserTokenFlags & { trackId: string }, ctx: CommandContext): Promise<void> {
  const trackId = await oneId(flags.trackId, 'track');
  const s = await userSession(ctx, flags);
  const { streamCheck } = await import('../../../client/media');
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
  const format = outputFormat(ctx);
  // the sentence is the table's form; --fields picks columns in a table too (a path it lacks: exit 2)
  if (format === 'table' && fieldsSpec(ctx) === undefined) {
    // a sheet (fitted to the width, whose track it is), as locker check's
    await printSheet(ctx, [
      ['Track', String(trackId)],
      ['Locker of', whoseLabel(s)],
      ['Stream', `yes (${r.contentType ?? 'audio'}${r.contentLength ? `, ${r.contentLength} bytes` : ''})`],
      ['Downloads', 'unchanged (a stream never uses one)'],
    ]);
  } else {
    const out = await output(ctx);
    out.heading(about(s, `Stream check of track ${trackId} for ${ofUser(s.userId)}`));
    await out.document(result, { columns: [{ key: 'trackId', header: 'Track' }, { key: 'streamable', header: 'Streamable' }, { key: 'contentType', header: 'Type' }], items: (b: unknown) => [b] });
  }
}

