// Pruning old journals of finished runs from mcat's journal folder (src/bulk/prune.ts).
import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
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
