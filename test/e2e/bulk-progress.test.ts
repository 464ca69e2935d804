// End to end: `playlist apply`'s progress (issue 5): on stderr when stderr is a terminal, one line
// redrawn in place saying done, failed, rate and time left; nothing of it through a pipe, where only
// the summary is said. The built bin/mcat, in a pseudo-terminal (util-linux `script`) and a pipe,
// against a sandbox with latency, so the run lasts long enough to be drawn more than once.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { sandboxForFile } from '../helpers/file-sandbox';
import { hasScript, mcatLine, pty } from '../helpers/pty';

const box = sandboxForFile(undefined, { faults: 'latency=40ms' });

// a line of progress, with every figure the issue names (colour and cursor codes stripped)
const PROGRESS = /^(\d+)\/(\d+) done, (\d+) failed, \d+\.\d\/s, (?:\d+:\d\d|--:--) left(?:, rate-limited, waiting)?$/;
const CODES = /\u001b\[[0-9;?]*[A-Za-z]/g;

/** 6 edits that fail (a playlist that does not exist: 2001), then 34 that apply. */
function editsFile(): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mcat-progress-'));
  const file = join(dir, 'edits.ndjson');
  const lines: string[] = [];
  for (let i = 0; i < 6; i++) lines.push(JSON.stringify({ op: 'details', playlistId: `ffffffffffffffffffffff${String(i).padStart(2, '0')}`, description: `missing ${i}` }));
  for (let i = 0; i < 34; i++) lines.push(JSON.stringify({ op: 'details', playlistId: box.sb.info.examples.playlistIds[0], description: `edit ${i}` }));
  writeFileSync(file, lines.join('\n') + '\n');
  return { dir, file };
}

describe('playlist apply: progress', () => {
  it.skipIf(!hasScript())('on a terminal: done, failed, rate and time left, redrawn on one line; then the summary', async () => {
    const { dir, file } = editsFile();
    const args = ['playlist', 'apply', file, '--concurrency', '1', '--journal', join(dir, 'journal'), '--report', join(dir, 'report.ndjson')];
    // stdout away, stderr on the terminal
    const r = await pty(`${mcatLine(args)} >/dev/null; echo EXIT=$?`, { cols: 100, sandboxDir: box.sb.dataDir, timeout: 60_000 });
    expect(r.out).toContain('EXIT=3');
    const shown = r.out.replace(CODES, '').split(/[\r\n]+/).map((l) => l.trim()).filter(Boolean);
    const progress = shown.filter((l) => /^\d+\/\d+ done/.test(l));
    expect(progress.length, r.out).toBeGreaterThan(1);
    for (const l of progress) expect(l).toMatch(PROGRESS);
    const figures = progress.map((l) => PROGRESS.exec(l)!.slice(1, 4).map(Number));
    expect(figures.every(([, total]) => total === 40)).toBe(true);
    // the failures are counted as they happen, and the line ends at the whole run
    expect(figures.some(([, , failed]) => failed > 0)).toBe(true);
    expect(figures.at(-1)).toEqual([40, 40, 6]);
    // the redrawn line is wiped before the summary: the summary line starts clean
    expect(r.out.replace(CODES, '')).toMatch(/(^|\n)mcat: 34 applied, 6 failed of 40 edits in /);
  });

  it('through a pipe: no progress at all, only the summary and the failures (exit 3)', async () => {
    const { dir, file } = editsFile();
    const r = await box.run(['playlist', 'apply', file, '--concurrency', '1', '--journal', join(dir, 'journal'), '--report', join(dir, 'report.ndjson')], { timeout: 60_000 });
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(/\r|\u001b|\/s, |done, \d+ failed/);
    expect(r.stderr).toMatch(/^mcat: 34 applied, 6 failed of 40 edits in [\d.]+ s$/m);
  });
});
