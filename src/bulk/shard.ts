// `playlist apply FILE --shard K/N` (and `playlist export --shard K/N`): one input split between N
// processes, machines or CI jobs with no coordination between them. Every shard reads the whole
// file and keeps the edits whose id hashes to it, so the N selections are disjoint and together
// the whole file. An edit hashes on what it changes: replace and details on the playlistId,
// group-add and group-replace on the groupId, so all the edits of one playlist (or group) land in
// one shard, in input order, and no two shards ever touch one playlist. A create has no id yet:
// it hashes on its edit key (`<position>:<hash of the edit>`), which every shard computes alike;
// the playlist it makes is new, so no other edit of the file can name it.
//
// The hash: the first 4 bytes of the SHA-256 of the id (its UTF-8 text), as a big-endian unsigned
// integer, modulo N, plus 1. It is the same on every machine and every Node, and easy to compute
// elsewhere (docs/bulk.md has it as a shell line).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputError } from '../client/errors';
import type { ParsedEdit } from './edits';
import { isComplete, isUntouched, playlistsMade, readJournal, stateOf } from './journal';
import { lockHolder } from './lock';

/** Shard `index` (1 to `count`) of `count`. */
export interface Shard {
  index: number;
  count: number;
  /** the environment variable the index came from (`--shard auto/N`) */
  from?: string;
}

export const MAX_SHARDS = 1024;
/** Set by a Kubernetes Indexed Job in each pod: 0 to completions-1. */
export const INDEX_ENV = 'JOB_COMPLETION_INDEX';

/**
 * `--shard K/N`: shard K of N, counted from 1 (as people, CI matrices and Playwright count), or
 * `auto/N`: K is JOB_COMPLETION_INDEX + 1 (a Kubernetes Indexed Job counts from 0). Anything
 * else is a usage error, before anything is read or sent.
 */
export function parseShard(value: string, env: NodeJS.ProcessEnv = process.env): Shard {
  const m = /^(auto|[0-9]+)\/([0-9]+)$/.exec(value);
  if (!m) throw new InputError(`--shard must be K/N (shard K of N, counted from 1, e.g. 2/4) or auto/N, got '${value}'`);
  const count = Number(m[2]);
  if (count < 1 || count > MAX_SHARDS) throw new InputError(`--shard ${value}: the number of shards must be 1 to ${MAX_SHARDS}, got ${m[2]}`);
  if (m[1] === 'auto') {
    const raw = env[INDEX_ENV];
    if (raw === undefined || raw.trim() === '') {
      throw new InputError(`--shard auto/${count} takes the shard from ${INDEX_ENV}, which is not set`, `a Kubernetes Indexed Job sets it; elsewhere give the shard as K/${count} (1 to ${count})`);
    }
    const t = raw.trim();
    if (!/^[0-9]+$/.test(t) || Number(t) >= count) {
      throw new InputError(`--shard auto/${count}: ${INDEX_ENV} must be 0 to ${count - 1}, got '${raw}'`, `the Job's completions and the N of --shard must agree`);
    }
    return { index: Number(t) + 1, count, from: INDEX_ENV };
  }
  const index = Number(m[1]);
  if (index < 1 || index > count) {
    throw new InputError(
      `--shard ${value}: the shard must be 1 to ${count}, got ${m[1]}`,
      index === 0 ? `shards are counted from 1; to count from 0 as ${INDEX_ENV} does, use auto/${count}` : undefined,
    );
  }
  return { index, count };
}

/** "2/4" */
export function shardLabel(s: Shard): string {
  return `${s.index}/${s.count}`;
}

/** The shard (1 to `count`) an id belongs to. */
export function shardOfId(id: string, count: number): number {
  return (createHash('sha256').update(id, 'utf8').digest().readUInt32BE(0) % count) + 1;
}

/** What an edit hashes on: the playlist or group it changes; a create, its edit key. */
export function shardKeyOf(pe: ParsedEdit): string {
  const e = pe.edit;
  if (e.op === 'replace' || e.op === 'details') return e.playlistId;
  if (e.op === 'group-add' || e.op === 'group-replace') return e.groupId;
  return pe.key;
}

/** The edits of one shard, in input order (positions, lines and keys as in the whole file). */
export function selectShard(edits: readonly ParsedEdit[], shard: Shard): ParsedEdit[] {
  return edits.filter((pe) => shardOfId(shardKeyOf(pe), shard.count) === shard.index);
}

/** 1000 -> "1,000" (not the locale's: logs are compared across machines). */
export function groupDigits(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** `shard 2/4: 250 of 1,000 edits` */
export function shardSummary(shard: Shard, selected: number, total: number): string {
  return `shard ${shardLabel(shard)}: ${groupDigits(selected)} of ${groupDigits(total)} edit${total === 1 ? '' : 's'}`;
}

/** `<stem>.journal` or `<stem>.shard-K-of-N.journal` (the form defaultJournalPath gives). */
const JOURNAL_NAME = /^(.*?)(?:\.shard-([0-9]+)-of-([0-9]+))?\.journal$/;

/**
 * The default journals of the same input split another way (another N, or not split), whose
 * runs sent edits and did not finish, or that a run holds now (it may not have sent anything
 * yet: two runs started at the same moment). Running or resuming now would apply those edits
 * again under other shards: a create would be made twice. Called with this run's own lock held,
 * so of two runs started together at least one sees the other. Only this machine's journals
 * can be seen.
 */
export function otherSplits(journalPath: string, shard: Shard | undefined): { path: string; split: string; pid?: number }[] {
  const dir = path.dirname(journalPath);
  const stem = JOURNAL_NAME.exec(path.basename(journalPath))?.[1];
  if (stem === undefined) return [];
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  // a run holds its lock (`<journal>.lock`) before its journal is made
  const journals = new Set(names.map((n) => n.replace(/\.lock$/, '')));
  const out: { path: string; split: string; pid?: number }[] = [];
  for (const name of [...journals].sort()) {
    const m = JOURNAL_NAME.exec(name);
    if (!m || m[1] !== stem) continue;
    const count = m[3] === undefined ? undefined : Number(m[3]);
    if (count === shard?.count) continue;
    const file = path.join(dir, name);
    const split = count === undefined ? 'not split' : `shard ${m[2]}/${count}`;
    const holder = lockHolder(file);
    if (holder) {
      out.push({ path: file, split, pid: holder.pid });
      continue;
    }
    try {
      const c = readJournal(file);
      if (!c.header) continue;
      const st = stateOf(c.header.runId, c.records);
      if (isUntouched(st) || isComplete(c, st)) continue;
    } catch {
      // no journal, or one that cannot be read (refused by its own run): not ours to judge
      continue;
    }
    out.push({ path: file, split });
  }
  return out;
}

/** Refuses (exit 2) a run whose input an unfinished run split another way: see otherSplits. */
export function checkOtherSplits(journalPath: string, shard: Shard | undefined, input: string): void {
  const others = otherSplits(journalPath, shard);
  if (!others.length) return;
  const first = others[0];
  const how = first.split === 'not split' ? '' : ` --shard ${first.split.replace(/^shard /, '')}`;
  if (first.pid !== undefined) {
    throw new InputError(
      `another mcat run (pid ${first.pid}) is applying these edits split another way (${first.split}: ${first.path}); running now could apply its edits twice`,
      `wait for it to finish, and split every run of one input the same way (mcat playlist apply ${input}${how} --resume carries it on)`,
    );
  }
  throw new InputError(
    `an unfinished run of these edits split them another way (${first.split}: ${first.path}${others.length > 1 ? `, and ${others.length - 1} more` : ''}); running now could apply its edits twice`,
    `finish that run first (mcat playlist apply ${input}${how} --resume), or remove its journal to abandon it`,
  );
}

/** `<base>-<16 hex>[.shard-K-of-N].journal`: the base name of the input the default journal is named after */
const DEFAULT_NAME = /^(.*)-[0-9a-f]{16}(?:\.shard-[0-9]+-of-[0-9]+)?\.journal$/;

/**
 * A run of a file whose edits changed since its run stopped. The default journal is named after the
 * edits, so the new edits find none, and a new run applies every edit again. The journals beside
 * it of the same file (the header's `source`) for other edits refuse it (exit 2) when that:
 * - `--resume`: is unfinished, or held by a run now (resuming would apply every edit the stopped
 *   run applied again, its creates twice);
 * - a plain run: is held by a run now (two versions of one file at once), or is unfinished and
 *   made playlists, or may have (a create sent, its answer not recorded): the new run would make
 *   them again. An unfinished run that made none (replaces, details, groups: idempotent) does not
 *   stop the new run, which applies them again (a nightly file, yesterday's run with a failure).
 * Neither is stopped by a run of the file for another target (another user's playlists).
 * Called holding this run's lock, only when it has no journal of its own yet.
 */
export function checkChangedInput(journalPath: string, source: string | undefined, inputHash: string, input: string, resume = true, target?: string): void {
  if (source === undefined || fs.existsSync(journalPath)) return;
  const dir = path.dirname(journalPath);
  const base = DEFAULT_NAME.exec(path.basename(journalPath))?.[1];
  if (base === undefined) return;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names.sort()) {
    const m = DEFAULT_NAME.exec(name);
    if (!m || m[1] !== base) continue;
    const file = path.join(dir, name);
    if (file === journalPath) continue;
    let running: boolean;
    let made: number;
    try {
      const c = readJournal(file);
      if (!c.header || c.header.source !== source || c.header.inputHash === inputHash) continue;
      // a run of the file for another user made that user's playlists, not this one's
      if (target !== undefined && c.header.target !== undefined && c.header.target !== target) continue;
      running = lockHolder(file) !== undefined;
      const st = stateOf(c.header.runId, c.records);
      if (!running && (isUntouched(st) || isComplete(c, st))) continue;
      made = playlistsMade(st);
      if (!running && !resume && made === 0) continue;
    } catch {
      continue;
    }
    if (!resume) {
      throw new InputError(
        running
          ? `${input} has changed since its run now running (${file}): refusing to start a run of its new version beside it`
          : `${input} has changed since its run that did not finish (${file}), which made ${made === 1 ? 'a playlist' : `${made} playlists`} (or may have): a new run would make ${made === 1 ? 'it' : 'them'} again; refusing to run`,
        running
          ? 'wait for that run to finish, then run again'
          : 'put back the file as it was and run again with --resume, or remove that journal to abandon its run (what it made stays)',
      );
    }
    throw new InputError(
      `${input} has changed since its run ${running ? 'now running' : 'that did not finish'} (${file}): resuming would apply every edit again (its creates twice); refusing to resume`,
      running
        ? 'wait for that run to finish, then run again without --resume'
        : `put back the file as it was and run --resume again, or remove that journal to abandon its run`,
    );
  }
}
