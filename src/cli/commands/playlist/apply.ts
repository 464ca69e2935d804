// `mcat playlist apply FILE`: many playlist edits from one file, through the bulk engine (src/bulk).
import { readFileSync } from 'node:fs';
import { McatError } from '../../../client/errors';
import { RunRefusedError, UsageError } from '../../errors';
import { print } from '../../../output/streams';
import { defineCommand, type CommandContext } from '../../command';
import { intOption, notice, outputFormat, progressLine, quiet, say } from '../../context';
import { PartialError } from '../../errors';
import { readInputBytes } from '../../ids';
import { checkStdinUse, userFlag, userSession } from '../../user-token';
import { tuneForRun } from '../../jit';
import { queryOf, WHOSE } from './shared';

export interface ApplyFlags {
  file: string;
  user?: string;
  userTokenFromStdin?: boolean;
  concurrency?: string;
  journal?: string;
  resume?: boolean;
  dryRun?: boolean;
  report?: string;
  inputFormat?: string;
  verify?: boolean;
  shard?: string;
}

export default defineCommand<ApplyFlags>({
  name: 'apply',
  description: 'apply many playlist edits from one file: journalled, resumable, concurrent',
  arguments: [{ name: '<file>', description: "edits: NDJSON (one per line), a JSON array, or CSV track lists ('-' for standard input)", complete: '@file' }],
  options: [
    { flags: '--concurrency <n>', description: 'edits in flight at most (default: adaptive, 32 growing to 64 while the service keeps up, cut on 429s)' },
    { flags: '--journal <file>', description: 'journal of outcomes (default: one per input and edits under $XDG_STATE_HOME/mcat/journals)', complete: '@file' },
    { flags: '--resume', description: 'skip the edits the journal shows as done' },
    { flags: '--dry-run', description: 'read the current state and show what each edit would change; send nothing' },
    { flags: '--report <file>', description: 'write an NDJSON report of every failed edit', complete: '@file' },
    { flags: '--input-format <format>', description: 'ndjson, json or csv (default: from the file name, else detected)', complete: ['ndjson', 'json', 'csv'] },
    { flags: '--verify', description: 'after the run, read back every playlist changed and check it' },
    { flags: '--shard <K/N>', description: "apply only shard K of N (from 1; 'auto/N': K from JOB_COMPLETION_INDEX + 1): edits split by playlist or group id, each shard its own journal" },
    ...WHOSE,
  ],
  help: 'Each edit: {"op":"replace"|"details"|"create"|"group-add"|"group-replace", "playlistId"?, "groupId"?,\n"playlistIds"?, name, status, visibility, description, imageUrl, annotations, tracks}.\nExit: 0 all applied, 3 some failed, 1 none applied, 2 bad input (nothing sent), 130 interrupted.',
  examples: [
    'mcat playlist apply edits.ndjson --report failures.ndjson',
    'mcat playlist apply edits.ndjson --resume',
    'mcat playlist apply edits.ndjson --shard 2/4   # on each of 4 machines: 1/4 … 4/4',
    'mcat playlist export > backup.ndjson && mcat playlist apply backup.ndjson',
  ],
  json: true,
  run: runApply,
});

/**
 * The edits, whole. A regular file at once (readFileSync): readFile's callback form loads its
 * reader (internal/fs/read/context) after the launcher's V8 flags (src/launcher/boot.ts), compiled
 * from source in every run (~1 ms). Standard input, pipes and devices as streams, within the input
 * cap (ids.ts), as a read that may wait must not hold the event loop (Ctrl-C).
 */
function readEdits(file: string): Promise<Buffer> {
  return readInputBytes(file, 'edits', (f) => readFileSync(f));
}

async function runApply(flags: ApplyFlags, ctx: CommandContext): Promise<void> {
  // the input module brings zod: loaded when the command runs, not for its help
  const { checkInputFormat } = await import('./input');
  const file = flags.file;
  checkStdinUse(flags, { "the edits file '-'": file });
  const user = userFlag(flags.user);
  const concurrency = intOption(flags.concurrency, '--concurrency', { min: 1, max: 64 });
  const format = checkInputFormat(flags.inputFormat);
  if (flags.dryRun && flags.resume) throw new UsageError('--dry-run and --resume exclude each other');
  if (!flags.dryRun && (ctx.globals.jq !== undefined || ctx.globals.json !== undefined)) {
    throw new UsageError('playlist apply prints JSON only with --dry-run', 'its outcome is the summary on stderr and --report FILE');
  }
  const bulk = await import('../../../bulk/index');
  const shard = flags.shard === undefined ? undefined : bulk.parseShard(flags.shard, ctx.env);
  // an empty name (`--report "$R"`, R unset) would run the edits and write no report
  if (flags.report !== undefined && flags.report.trim() === '') throw new UsageError('--report needs a file name, got an empty one');
  if (flags.report && !flags.dryRun) bulk.checkReportPath(flags.report);
  const name = file === '-' ? 'stdin' : file;

  // the whole input is checked before anything is sent
  const bytes = await readEdits(file);
  const parsed = bulk.parseEdits(bytes, { fileName: name, ...(format ? { format } : {}) });
  if (parsed.errors.length) {
    const max = 200;
    for (const p of parsed.errors.slice(0, max)) say(`mcat: ${p.message}`);
    if (parsed.errors.length > max) say(`mcat: … and ${parsed.errors.length - max} more problems`);
    const lines = new Set(parsed.errors.map((p) => p.line)).size;
    throw new UsageError(`${name}: ${lines} bad line${lines === 1 ? '' : 's'} (${parsed.errors.length} problem${parsed.errors.length === 1 ? '' : 's'}); nothing was sent`, 'fix the lines named above and run again');
  }
  if (parsed.edits.length === 0) throw new UsageError(`no edits in ${file === '-' ? 'standard input' : file}; nothing was sent`);
  for (const w of parsed.warnings) say(`mcat: warning: ${w.message}`);
  // a shard keeps its edits' positions, lines and keys: the shards' journals together are the file's
  const edits = shard ? bulk.selectShard(parsed.edits, shard) : parsed.edits;
  const scope = shard ? bulk.shardSummary(shard, edits.length, parsed.edits.length) : undefined;
  const label = shard ? bulk.shardLabel(shard) : undefined;
  const fmt = flags.dryRun ? outputFormat(ctx) : undefined;
  if (fmt === 'csv' || fmt === 'tsv' || fmt === 'xml') throw new UsageError(`--dry-run prints a table, json or ndjson, not ${fmt}`);
  // under $XDG_STATE_HOME/mcat/journals, named after the input's path and edits (and the shard): never the current folder
  const source = bulk.inputSource(file);
  const journalPath = flags.journal ?? bulk.defaultJournalPath(file, parsed.inputHash, { env: ctx.env, ...(shard ? { shard } : {}) });
  if (flags.report && !flags.dryRun) bulk.checkReportClash(flags.report, { ...(file !== '-' ? { input: file } : {}), journal: journalPath });

  // one connection per edit that can be in flight: a smaller pool would cap --concurrency (or the
  // adaptive limit) without a word, a larger one only opens connections no edit waits for
  const s = await userSession(ctx, { ...flags, user }, { connections: Math.max(16, bulk.mostInFlight(edits, concurrency ?? bulk.ADAPTIVE_MAX)) });
  const q = queryOf(s, user);
  const signal = ctx.signal;
  const api = (await import('../../../client/playlist-api')).playlistApi(s.client);
  // the service, the user's token and the user (a hash): an earlier run's creates are carried
  // over only to a run for the same (the dry run plans as much), and a resume for another is refused
  const target = bulk.applyTarget(s.account, q.userId);

  if (scope) notice(`mcat: ${scope}${shard?.from ? ` (${shard.from}=${shard.index - 1})` : ''}`);
  if (flags.dryRun) {
    // as the run would: the ifMissing edits whose playlists the last run of these edits for this user created replace them
    const carried = bulk.carriedForDryRun(journalPath, edits, { inputHash: parsed.inputHash, target, ...(label ? { shard: label } : {}) });
    const plans = await bulk.dryRunEdits({ api, edits, country: q.country, userId: q.userId, concurrency: Math.min(concurrency ?? 4, 16), signal, carried });
    // a state that could not be read (unreachable, credentials refused) is no plan: the error and
    // its exit code (1, 4), nothing on stdout, as for any read; a CI gate on --dry-run then fails
    const unread = plans.find((p) => p.readFailure !== undefined);
    if (unread && !signal.aborted) {
      const e = unread.readFailure as Error & { hint?: string };
      if (e instanceof Error) e.message = `dry run: ${e.message}`;
      throw e;
    }
    if (fmt === 'table') {
      // text for people, no line wider than the terminal: each line cleaned (controls and bidi
      // shown), then wrapped, never cut (an id at the end of a group's line is what is read)
      const { clean } = await import('../../../output/clean');
      const { fitLines } = await import('../../../output/width');
      const { terminalWidth } = await import('../../../output/tty');
      const lines = bulk.formatDryRun(plans, name, scope).map((l) => clean(l, 'line'));
      await print(fitLines(lines, terminalWidth(ctx.io.stdout, ctx.env)).join('\n') + '\n', 'lines');
    } else {
      const docs = plans.map((p) => ({ line: p.line, key: p.key, edit: bulk.canonicalEdit(p.edit), action: p.action, ...(p.diff ? { diff: p.diff } : {}), ...(p.error ? { error: p.error } : {}), lines: p.lines }));
      if (fmt === 'ndjson') await print(docs.map((d) => JSON.stringify(d) + '\n').join(''));
      else await (await import('../../json-out')).printJson(ctx, docs);
    }
    return;
  }

  const progress = bulk.progressRenderer(progressLine());
  // a short run: V8 optimises only its hottest code (src/cli/jit.ts), once every bundle is loaded
  const untune = await tuneForRun(edits.length);
  let result;
  try {
    result = await bulk.applyEdits({
      api,
      limiter: s.client.limiter,
      edits,
      country: q.country,
      userId: q.userId,
      // without --concurrency: grows while the service keeps up, shrinks on 429s (bulk/adaptive.ts)
      concurrency: concurrency ?? 'auto',
      journalPath,
      // the input split another way by a run that has not finished, or that runs now: its edits
      // would be applied twice. Checked holding this run's lock, so of two runs started at the
      // same moment at least one sees the other
      // and a run of the file changed since its run stopped: that run's journal, named after the
      // old edits, would not be found, and every edit it applied would be applied again (refused
      // for --resume, and for a plain run when that run made playlists: they would be made twice)
      ...(flags.journal === undefined
        ? {
            afterLock: () => {
              bulk.checkOtherSplits(journalPath, shard, file);
              bulk.checkChangedInput(journalPath, source, parsed.inputHash, file, Boolean(flags.resume), target);
            },
          }
        : {}),
      env: ctx.env,
      maxPages: s.client.maxPages,
      resume: Boolean(flags.resume),
      signal,
      inputHash: parsed.inputHash,
      input: name,
      ...(source !== undefined ? { source } : {}),
      ...(label ? { shard: label } : {}),
      target,
      onProgress: progress.onProgress,
      notice: (line) => {
        progress.end();
        notice(`mcat: ${line}`);
      },
    });
  } finally {
    untune();
    progress.end();
  }
  // a report that cannot be written (a full disk) is said after the summary: what the run did is
  // in its journal and must still be said
  let reportError: unknown;
  if (flags.report) {
    try {
      // NDJSON read by people too (cat): C1 escaped as on stdout (CONVENTIONS, Text from elsewhere)
      const { clean } = await import('../../../output/clean');
      bulk.runReport(flags.report, result, (r) => clean(JSON.stringify(r), 'json'));
    } catch (e) {
      reportError = e;
    }
  }
  // finished journals over 30 days old in mcat's own folder (bulk/prune.ts); never one named by --journal
  if (flags.journal === undefined) bulk.pruneJournals(bulk.journalDir(ctx.env), { keep: journalPath });
  // quiet: the summary only when something failed or was left undone
  if (reportError !== undefined || !quiet() || result.failed.length || result.pending.length || result.interrupted) {
    const reportPath = reportError === undefined ? flags.report : undefined;
    for (const line of bulk.summaryLines(result, { fileName: name, reportPath, ...(label ? { shard: label } : {}) })) say(line);
  }
  if (reportError !== undefined) throw reportError;

  if (flags.verify && !result.interrupted) {
    // (a resumed run's playlists created by its earlier sessions too: read where they are)
    const created = [...result.created, ...(result.createdBefore ?? [])];
    const v = await bulk.verifyEdits({ api, edits, created, carried: result.carried, country: q.country, userId: q.userId });
    // a playlist some failed edit should have changed is expected to differ: the failure was reported
    const touchedByFailures = new Set(result.failed.flatMap((f) => [f.playlistId, 'playlistId' in f.edit ? f.edit.playlistId : undefined]).filter(Boolean));
    const bad = v.mismatches.filter((m) => !touchedByFailures.has(m.playlistId));
    if (bad.length) {
      for (const m of bad) say(`mcat: verify: ${name}:${m.line}: playlist ${m.playlistId} differs: ${m.lines.join('; ')}`);
      throw new PartialError(`verify: ${bad.length} of ${v.checked} playlists do not hold what the edits asked for`);
    }
    notice(`mcat: verified ${v.checked} playlist${v.checked === 1 ? '' : 's'}: each holds what its edits asked for`);
  }

  switch (bulk.applyExitCode(result)) {
    case 0:
    case 130: // the interrupt was recorded by the signal handler; main exits 130
      return;
    case 3:
      throw new PartialError(`${result.failed.length} of ${result.total} edits failed${flags.report ? `; see ${flags.report}` : ''}`);
    default: {
      // a count in words that agree with it: 'none of the 1 edits' said so of a one-edit file
      const none = result.total === 1 ? 'the one edit could not be applied' : `none of the ${result.total} edits could be applied`;
      if (result.failed.length && result.failed.every((f) => f.error === 'AuthError' || f.code === 2002)) {
        // every edit refused for the credentials or the country: say so, with the conventions' exit 4
        const first = result.failed[0];
        const e = new RunRefusedError(none, first.message, first.httpStatus, first.code);
        // not for another user's playlists: errors.ts says those as a single command does, with that user's token as the hint
        e.hint = "check the profile's credentials and country with 'mcat auth status'; then run again with --resume";
        throw e;
      }
      const e = new McatError(none);
      e.hint = flags.report ? `see ${flags.report}` : 'the failures are listed above; fix them and run again with --resume';
      throw e;
    }
  }
}
