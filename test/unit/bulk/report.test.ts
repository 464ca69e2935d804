// Writing `--report FILE`: 0600, never through a symbolic or hard link, a regular file replaced
// whole, a device written as such; a bad path refused before the run (checkReportPath).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../../src/bulk/apply';
import { parseEdits } from '../../../src/bulk/edits';
import { checkReportPath, runReport, summaryLines } from '../../../src/bulk/report';
import { McatError, InputError } from '../../../src/client/errors';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcat-report-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const edit = parseEdits(JSON.stringify({ op: 'details', playlistId: 'a'.repeat(24), name: 'x' }), { fileName: 'in.ndjson' }).edits[0];
const result: ApplyResult = {
  total: 1,
  applied: 0,
  skipped: 0,
  failed: [{ ...edit, error: 'ApiError', code: 2001, httpStatus: 404, message: 'not found', attempts: 1 }],
  pending: [],
  interrupted: false,
  created: [],
  carried: [],
  orphans: [],
  journalPath: 'j',
  runId: 'r',
  resumed: false,
  elapsedMs: 1,
};
const mode = (p: string) => fs.statSync(p).mode & 0o777;
const thrown = (f: () => void): unknown => {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
};

describe('runReport', () => {
  it('creates the report 0600 whatever the umask, leaving no temporary file', () => {
    const file = path.join(dir, 'report.ndjson');
    const old = process.umask(0);
    try {
      runReport(file, result);
    } finally {
      process.umask(old);
    }
    expect(mode(file)).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, 'utf8').trim())).toMatchObject({ line: 1, outcome: 'failed', code: 2001 });
    expect(fs.readdirSync(dir)).toEqual(['report.ndjson']);
  });

  it('replaces an existing regular file (as before) with a private one', () => {
    const file = path.join(dir, 'report.ndjson');
    fs.writeFileSync(file, 'old report, much longer than the new one '.repeat(100), { mode: 0o644 });
    runReport(file, result);
    expect(mode(file)).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8')).toMatch(/^\{"edit".*\n$/);
  });

  it('removes what report writes killed before their rename left (their process gone); never a live one\'s, a link, or another name\'s', () => {
    const file = path.join(dir, 'report.ndjson');
    const target = path.join(dir, 'target');
    fs.writeFileSync(target, 'keep');
    // pids past Linux's pid_max (2^22) name no process
    const dead = ['.report.ndjson.4194305-abc123.tmp', '.report.ndjson.4194399-z9.tmp'];
    const kept = ['.report.ndjson.1-abc123.tmp', '.other.ndjson.4194305-abc123.tmp', 'report.ndjson.4194305-abc123.tmp', 'target'];
    for (const n of [...dead, ...kept]) if (n !== 'target') fs.writeFileSync(path.join(dir, n), 'half');
    fs.symlinkSync(target, path.join(dir, '.report.ndjson.4194306-abc123.tmp'));
    runReport(file, result);
    expect(fs.readdirSync(dir).sort()).toEqual([...kept, '.report.ndjson.4194306-abc123.tmp', 'report.ndjson'].sort());
    expect(fs.readFileSync(target, 'utf8')).toBe('keep');
  });

  it('never writes through a symbolic link: refused, the target untouched', () => {
    const target = path.join(dir, 'target');
    fs.writeFileSync(target, 'keep', { mode: 0o644 });
    const file = path.join(dir, 'report.ndjson');
    fs.symlinkSync(target, file);
    const err = thrown(() => runReport(file, result));
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toBe(`--report ${file} is a symbolic link: mcat does not write through one`);
    expect(fs.readFileSync(target, 'utf8')).toBe('keep');
    expect(fs.readlinkSync(file)).toBe(target);
    expect(fs.readdirSync(dir).sort()).toEqual(['report.ndjson', 'target']);
  });

  it('never writes through a hard link: the other name keeps its content', () => {
    const other = path.join(dir, 'other');
    fs.writeFileSync(other, 'keep');
    const file = path.join(dir, 'report.ndjson');
    fs.linkSync(other, file);
    runReport(file, result);
    expect(fs.readFileSync(other, 'utf8')).toBe('keep');
    expect(fs.readFileSync(file, 'utf8')).toContain('"outcome":"failed"');
  });

  it('writes to a device as such (--report /dev/null)', () => {
    expect(() => runReport('/dev/null', result)).not.toThrow();
    expect(fs.statSync('/dev/null').isCharacterDevice()).toBe(true);
  });

  it('a failed write is one line naming the file', () => {
    const err = thrown(() => runReport(path.join(dir, 'missing', 'report.ndjson'), result));
    expect(err).toBeInstanceOf(McatError);
    expect((err as Error).message).toBe(`cannot write the report ${dir}/missing/report.ndjson: no such file or folder (ENOENT)`);
    // (space is not what is missing here: the folder went away during the run)
    expect((err as McatError).hint).toBe('the summary above says what the run did; name a --report you can write');
  });
});

describe('checkReportPath', () => {
  it('accepts a new file, an existing regular file and a device', () => {
    fs.writeFileSync(path.join(dir, 'old.ndjson'), 'x');
    for (const f of [path.join(dir, 'new.ndjson'), path.join(dir, 'old.ndjson'), '/dev/null']) expect(() => checkReportPath(f)).not.toThrow();
  });

  it('refuses a symbolic link (also a dangling one), a folder, and a missing folder: usage errors', () => {
    const link = path.join(dir, 'link');
    fs.symlinkSync(path.join(dir, 'nowhere'), link);
    const cases: [string, string][] = [
      [link, `--report ${link} is a symbolic link: mcat does not write through one`],
      [dir, `--report ${dir} is a folder`],
      [path.join(dir, 'no', 'r.ndjson'), `--report ${path.join(dir, 'no', 'r.ndjson')}: no such folder ${path.join(dir, 'no')}`],
    ];
    for (const [f, message] of cases) {
      const err = thrown(() => checkReportPath(f));
      expect(err, f).toBeInstanceOf(InputError);
      expect((err as Error).message).toBe(message);
    }
    expect(fs.existsSync(path.join(dir, 'nowhere'))).toBe(false);
  });
});

describe('summaryLines', () => {
  it('counts duplicate playlists left by lost create answers in words that agree with the count', () => {
    const one = summaryLines({ ...result, orphans: ['b'.repeat(24)] });
    expect(one).toContain(`  duplicate playlist left by lost create answers: ${'b'.repeat(24)}`);
    const two = summaryLines({ ...result, orphans: ['b'.repeat(24), 'c'.repeat(24)] });
    expect(two).toContain(`  duplicate playlists left by lost create answers: ${'b'.repeat(24)}, ${'c'.repeat(24)}`);
    expect(summaryLines(result).join('\n')).not.toMatch(/duplicate/);
  });
});
