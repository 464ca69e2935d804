// Pruning old journals of finished runs from mcat's journal folder (src/bulk/prune.ts).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostname, tmpdir } from 'node:os';
import { endedClean, pruneJournals } from '../../../src/bulk/prune';

const DAY = 24 * 60 * 60 * 1000;
const now = Date.parse('2026-11-28T00:00:00Z');

const header = (total: number) => JSON.stringify({ type: 'header', version: 1, runId: '0123456789abcdef', inputHash: 'ab'.repeat(32), input: 'edits.ndjson', total, createdAt: '2026-09-01T00:00:00.000Z' });
const done = (n: number) => JSON.stringify({ type: 'done', key: `${n}:aaaaaaaaaaaa`, line: n, op: 'replace', at: '2026-09-01T00:00:01.000Z', playlistId: 'f'.repeat(24) });
const failed = (n: number) => JSON.stringify({ type: 'failed', key: `${n}:aaaaaaaaaaaa`, line: n, op: 'replace', at: '2026-09-01T00:00:01.000Z', error: 'ApiError', message: 'not found', code: 2001 });
const end = (applied: number, failedN: number, interrupted = false) => JSON.stringify({ type: 'end', applied, failed: failedN, skipped: 0, interrupted, at: '2026-09-01T00:00:02.000Z' });

function folder(): string {
  return mkdtempSync(join(tmpdir(), 'mcat-prune-'));
}

/** A journal of `lines`, last written `days` before now. */
function journal(dir: string, name: string, lines: string[], days: number, withLock = false): string {
  const f = join(dir, name);
  writeFileSync(f, lines.map((l) => l + '\n').join(''), { mode: 0o600 });
  const t = new Date(now - days * DAY);
  utimesSync(f, t, t);
  if (withLock) {
    mkdirSync(`${f}.lock`, { mode: 0o700 });
    writeFileSync(join(`${f}.lock`, '1'), JSON.stringify({ pid: 1, free: true }));
  }
  return f;
}

describe('pruneJournals', () => {
  it('removes a complete journal (and its lock folder) last written over 30 days ago, and nothing else', () => {
    const d = folder();
    journal(d, 'old-complete.journal', [header(2), done(1), done(2), end(2, 0)], 31, true);
    journal(d, 'new-complete.journal', [header(2), done(1), done(2), end(2, 0)], 29);
    journal(d, 'old-failed.journal', [header(2), done(1), failed(2), end(1, 1)], 400);
    journal(d, 'old-interrupted.journal', [header(2), done(1), end(1, 0, true)], 400);
    journal(d, 'old-unfinished.journal', [header(2), done(1)], 400);
    // an end record that says nothing failed, yet an edit is not done (a resumed run that skipped it)
    journal(d, 'old-short.journal', [header(3), done(1), done(2), end(2, 0)], 400);
    journal(d, 'old-torn.journal', [header(1), done(1), end(1, 0).slice(0, 20)], 400);
    journal(d, 'old-complete.txt', [header(1), done(1), end(1, 0)], 400);
    const removed = pruneJournals(d, { now });
    expect(removed).toEqual(['old-complete.journal']);
    expect(readdirSync(d).sort()).toEqual(
      ['new-complete.journal', 'old-complete.txt', 'old-failed.journal', 'old-interrupted.journal', 'old-short.journal', 'old-torn.journal', 'old-unfinished.journal'].sort(),
    );
  });

  it('keeps the journal it is told to keep, and never follows or removes a symbolic link', () => {
    const d = folder();
    const outside = folder();
    const kept = journal(d, 'current.journal', [header(1), done(1), end(1, 0)], 100);
    const target = journal(outside, 'elsewhere.journal', [header(1), done(1), end(1, 0)], 100);
    symlinkSync(target, join(d, 'link.journal'));
    expect(pruneJournals(d, { now, keep: kept })).toEqual([]);
    expect(existsSync(kept)).toBe(true);
    expect(existsSync(join(d, 'link.journal'))).toBe(true);
    expect(existsSync(target)).toBe(true);
  });

  it('a folder that is not there prunes nothing and does not throw', () => {
    expect(pruneJournals(join(folder(), 'none'), { now })).toEqual([]);
  });
});

describe('endedClean', () => {
  it('is true only for a last record that ends a run with no failure and no interruption', () => {
    expect(endedClean(`${header(1)}\n${done(1)}\n${end(1, 0)}\n`)).toBe(true);
    expect(endedClean(`${end(1, 0)}`)).toBe(true);
    expect(endedClean(`${end(1, 1)}\n`)).toBe(false);
    expect(endedClean(`${end(1, 0, true)}\n`)).toBe(false);
    expect(endedClean(`${end(1, 0)}\n${done(1)}\n`)).toBe(false);
    expect(endedClean(`${end(1, 0).slice(0, 30)}`)).toBe(false);
    expect(endedClean('')).toBe(false);
  });
});

describe('pruneJournals: lock folders with no journal (a prune killed between its two removals)', () => {
  /** A lock folder holding one claim, with no journal beside it. */
  function orphan(dir: string, name: string, claim: object): string {
    const lock = join(dir, `${name}.lock`);
    mkdirSync(lock, { mode: 0o700 });
    writeFileSync(join(lock, '3'), JSON.stringify(claim) + '\n', { mode: 0o600 });
    return lock;
  }
  const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

  it('removes those whose lock is released or whose process is gone; keeps a live run\'s, another host\'s, the kept journal\'s and any beside a journal', () => {
    const d = folder();
    orphan(d, 'released.journal', { free: true });
    orphan(d, 'dead.journal', { pid: deadPid(), host: hostname(), token: 'x' });
    // a live process (this test's parent) holds it: never removed, its claim untouched
    const live = orphan(d, 'live.journal', { pid: process.ppid, host: hostname(), token: 'y' });
    const remote = orphan(d, 'remote.journal', { pid: deadPid(), host: 'another-host.example', token: 'z' });
    const kept = orphan(d, 'current.journal', { free: true });
    journal(d, 'recent.journal', [header(1), done(1), end(1, 0)], 1, true);
    // what a prune killed after moving a folder aside leaves: removed once its process is gone
    mkdirSync(join(d, `.gone.journal.lock.pruned-${deadPid()}-0123456789abcdef`), { mode: 0o700 });
    const busy = join(d, `.busy.journal.lock.pruned-${process.ppid}-0123456789abcdef`);
    mkdirSync(busy, { mode: 0o700 });
    expect(pruneJournals(d, { now, keep: join(d, 'current.journal') })).toEqual([]);
    expect(readdirSync(d).sort()).toEqual(
      [`.busy.journal.lock.pruned-${process.ppid}-0123456789abcdef`, 'current.journal.lock', 'live.journal.lock', 'recent.journal', 'recent.journal.lock', 'remote.journal.lock'].sort(),
    );
    expect(readdirSync(live)).toEqual(['3']);
    expect(JSON.parse(readFileSync(join(live, '3'), 'utf8')).pid).toBe(process.ppid);
    expect(readdirSync(remote)).toEqual(['3']);
    expect(readdirSync(kept)).toEqual(['3']);
    expect(existsSync(busy)).toBe(true);
  });

  it('never follows a link named like a lock folder', () => {
    const d = folder();
    const outside = folder();
    orphan(outside, 'x.journal', { free: true });
    symlinkSync(join(outside, 'x.journal.lock'), join(d, 'x.journal.lock'));
    pruneJournals(d, { now });
    expect(readdirSync(join(outside, 'x.journal.lock'))).toEqual(['3']);
    expect(readdirSync(d)).toEqual(['x.journal.lock']);
  });
});
