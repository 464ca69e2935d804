// End to end: `locker download`'s progress bar (issue 4): on stderr when it is a terminal, kept on
// its own line (the 'saved' line after it starts clean); nothing of it through a pipe. The built
// bin/mcat in a pseudo-terminal (util-linux `script`) and a pipe, against a sandbox.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { sandboxForFile } from '../helpers/file-sandbox';
import { hasScript, mcatLine, pty } from '../helpers/pty';

const box = sandboxForFile();
const CODES = /\u001b\[[0-9;?]*[A-Za-z]/g;

describe('locker download: progress', () => {
  it.skipIf(!hasScript())('on a terminal: the track title, a bar and 100% on stderr; the file saved, 0600', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcat-dl-progress-'));
    const file = join(dir, 'track.mp3');
    const track = String(box.sb.info.examples.trackIds[0]);
    const r = await pty(`${mcatLine(['locker', 'download', track, '-O', file])} >${join(dir, 'stdout')}; echo EXIT=$?`, { cols: 100, sandboxDir: box.sb.dataDir });
    expect(r.out).toContain('EXIT=0');
    const lines = r.out.replace(CODES, '').split('\n').map((l) => l.split('\r').filter(Boolean).at(-1) ?? '');
    const bar = lines.find((l) => /█/.test(l));
    expect(bar, r.out).toMatch(/^\S.* █{30} 100%$/);
    // the bar's line is ended before the next: 'saved' starts its own line
    expect(lines).toContainEqual(expect.stringMatching(/^mcat: saved .*track\.mp3 \(\d+ bytes\); \d+ downloads? left$/));
    expect(readFileSync(join(dir, 'stdout'), 'utf8')).toBe('');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('through a pipe: no bar, only the one line that says it was saved', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcat-dl-progress-'));
    const file = join(dir, 'track.mp3');
    const r = await box.run(['locker', 'download', String(box.sb.info.examples.trackIds[1]), '-O', file]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(/[█░\r]|\u001b|%/);
    expect(r.stderr).toMatch(/^mcat: saved .*track\.mp3 \(\d+ bytes\); \d+ downloads? left$/m);
  });
});
