// `playlist apply --report FILE` through the built CLI: the report is a private file (0600) that
// replaces a regular file at FILE, and a symbolic link there is refused before anything is sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { readOnlyFolder } from '../helpers/temp';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startTestSandbox } from '../helpers/sandbox';
import { mcat } from '../helpers/mcat';

let sb: Awaited<ReturnType<typeof startTestSandbox>>;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb?.close();
});

const missing = 'bad1'.padStart(24, '0');

function setUp(name: string) {
  const d = mkdtempSync(join(tmpdir(), 'mcat-report-'));
  const edits = join(d, 'edits.ndjson');
  const pl = sb.info.examples.playlistIds[0];
  writeFileSync(edits, [{ op: 'details', playlistId: pl, name }, { op: 'details', playlistId: missing, name: 'x' }].map((e) => JSON.stringify(e) + '\n').join(''));
  const run = (report: string) => mcat(['playlist', 'apply', edits, '--journal', join(d, 'journal'), '--report', report], { sandboxDir: sb.dataDir });
  return { d, pl, run };
}

async function nameOf(pl: string): Promise<string> {
  const r = await mcat(['playlist', 'show', pl, '-o', 'json'], { sandboxDir: sb.dataDir });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout).playlist.name;
}

describe('playlist apply --report', () => {
  it('a symbolic link is refused before anything is sent: exit 2, one line and a hint, the target untouched', async () => {
    const { d, pl, run } = setUp('never applied');
    const before = await nameOf(pl);
    const target = join(d, 'precious');
    writeFileSync(target, 'keep me', { mode: 0o644 });
    const link = join(d, 'report.ndjson');
    symlinkSync(target, link);
    const r = await run(link);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`mcat: --report ${link} is a symbolic link: mcat does not write through one\nhint: name the file itself, or a new one\n`);
    expect(readFileSync(target, 'utf8')).toBe('keep me');
    expect(readlinkSync(link)).toBe(target);
    expect(existsSync(join(d, 'journal'))).toBe(false);
    expect(await nameOf(pl)).toBe(before);
  });

  it.skipIf(!existsSync('/dev/full'))('a report the disk has no room for (/dev/full): the summary of what was applied still said, then one line and a hint, exit 1', async () => {
    const { pl, run } = setUp('applied, report lost');
    const r = await run('/dev/full');
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.some((l) => /^mcat: 1 applied, 0 already done, 1 failed of 2 edits/.test(l) || /^mcat: 1 applied, 1 failed of 2 edits/.test(l)), r.stderr).toBe(true);
    expect(r.stderr).not.toMatch(/report of failures written/);
    expect(lines.slice(-2)).toEqual(['mcat: cannot write the report /dev/full: no space left on the device (ENOSPC)', 'hint: the summary above says what the run did; free some space, or name another --report']);
    expect(await nameOf(pl)).toBe('applied, report lost');
  });

  // A folder mcat cannot write in: read-only for a user (chmod), or a read-only file system for
  // root, who writes through modes (a tmpfs mounted read-only, where this machine lets the tests
  // mount one). Either way the run was applied and its report lost at the end (exit 1, 'free some
  // space'); it is now refused before anything is sent.
  it('a report in a folder mcat cannot write in is refused before anything is sent: exit 2, one line and a hint', async () => {
    const { d, pl, run } = setUp('never applied: report folder read-only');
    const before = await nameOf(pl);
    const folder = join(d, 'read-only');
    const undo = readOnlyFolder(folder);
    if (!undo) return; // neither a user nor a mount here: nothing to test it with
    try {
      const report = join(folder, 'report.ndjson');
      const r = await run(report);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(new RegExp(`^mcat: --report ${report.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: cannot write in the folder: (the file system is read-only \\(EROFS\\)|permission denied \\(EACCES\\))$`));
      expect(lines[1]).toBe('hint: name a report in a folder you can write');
      expect(existsSync(join(d, 'journal'))).toBe(false);
      expect(await nameOf(pl)).toBe(before);
    } finally {
      undo();
    }
  });

  it('a report at the input file or at the journal is refused before anything is sent: exit 2, both kept', async () => {
    const { d, pl, run } = setUp('never applied either');
    const before = await nameOf(pl);
    const edits = join(d, 'edits.ndjson');
    const text = readFileSync(edits, 'utf8');
    const r = await run(edits);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(`mcat: --report ${edits} is the input file: the report would replace the edits\nhint: name another file for the report\n`);
    expect(readFileSync(edits, 'utf8')).toBe(text);
    expect(existsSync(join(d, 'journal'))).toBe(false);
    // the journal: named the same way, or through another path to it
    for (const report of [join(d, 'journal'), join(d, '.', 'journal')]) {
      const j = await run(report);
      expect(j.exitCode).toBe(2);
      expect(j.stderr).toBe(`mcat: --report ${report} is this run's journal: the report would replace it\nhint: name another file for the report, or give --journal another path\n`);
    }
    expect(await nameOf(pl)).toBe(before);
  });

  it('the report is written 0600, replacing a regular file that was there', async () => {
    const { d, pl, run } = setUp('applied with a report');
    const report = join(d, 'report.ndjson');
    writeFileSync(report, 'an older report\n', { mode: 0o644 });
    const r = await run(report);
    expect(r.exitCode, r.stderr).toBe(3);
    expect(statSync(report).mode & 0o777).toBe(0o600);
    const lines = readFileSync(report, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.line, l.outcome, l.edit.playlistId])).toEqual([[2, 'failed', missing]]);
    expect(await nameOf(pl)).toBe('applied with a report');
  });

  it('a report named to the 255-byte limit of a file name is written (its temporary name is cut to fit)', async () => {
    const { d, run } = setUp('applied with a long report name');
    // 85 three-byte characters: 255 bytes of UTF-8, the longest name ext4 and most file systems take
    const report = join(d, '報'.repeat(85));
    const r = await run(report);
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stderr).not.toMatch(/cannot write the report/);
    expect(statSync(report).mode & 0o777).toBe(0o600);
    const lines = readFileSync(report, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.line, l.outcome])).toEqual([[2, 'failed']]);
    expect(readdirSync(d).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});
