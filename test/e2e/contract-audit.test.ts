// Deviations from the CLI's contract (CONVENTIONS.md, api-decisions.md) found by an audit of every
// command, each run through the real binary against a sandbox on 127.0.0.1.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tempHome } from '../helpers/mcat';
import { sandboxForFile } from '../helpers/file-sandbox';

const box = sandboxForFile();
const run = box.run;

const lines = (s: string) => s.split('\n').filter(Boolean);

describe('--page N with --all or --limit starts where --page N alone starts', () => {
  it('locker --page 2 --all: the releases of page 2 and after (the locker user has 14: page 2 holds 11-14)', async () => {
    const [one, walk, whole] = await Promise.all([
      run(['locker', '--page', '2', '-o', 'ndjson', '--fields', 'release.id']),
      run(['locker', '--page', '2', '--all', '-o', 'ndjson', '--fields', 'release.id']),
      run(['locker', '--all', '-o', 'ndjson', '--fields', 'release.id']),
    ]);
    for (const r of [one, walk, whole]) expect(r.exitCode, r.stderr).toBe(0);
    const all = lines(whole.stdout);
    expect(all.length).toBeGreaterThan(10);
    expect(lines(one.stdout)).toEqual(all.slice(10, 20));
    // a walk at 50 a page from page 2 was empty: the whole locker is one page of 50
    expect(lines(walk.stdout)).toEqual(all.slice(10));
  });

  it('artist releases --page 2 --all: every release from the 11th, none skipped', async () => {
    const a = String(box.sb.info.examples.artistWithManyReleases);
    const [whole, walk] = await Promise.all([
      run(['artist', 'releases', a, '--all', '-o', 'ndjson', '--fields', 'id']),
      run(['artist', 'releases', a, '--page', '2', '--all', '-o', 'ndjson', '--fields', 'id']),
    ]);
    for (const r of [whole, walk]) expect(r.exitCode, r.stderr).toBe(0);
    expect(lines(walk.stdout)).toEqual(lines(whole.stdout).slice(10));
  });

  it('release tracks --page 2 --limit 3: tracks 11-13 of a longer release, as --page 2 shows them', async () => {
    // a release with more than 12 tracks among the artist's
    const a = String(box.sb.info.examples.artistWithManyReleases);
    const rel = await run(['artist', 'releases', a, '--all', '-o', 'ndjson', '--fields', 'id,trackCount']);
    const long = lines(rel.stdout)
      .map((l) => JSON.parse(l) as { id: number; trackCount: number })
      .find((r) => r.trackCount >= 13);
    expect(long).toBeDefined();
    const id = String(long!.id);
    const [page2, limited] = await Promise.all([
      run(['release', 'tracks', id, '--page', '2', '-o', 'ndjson', '--fields', 'id']),
      run(['release', 'tracks', id, '--page', '2', '--limit', '3', '-o', 'ndjson', '--fields', 'id']),
    ]);
    for (const r of [page2, limited]) expect(r.exitCode, r.stderr).toBe(0);
    expect(lines(limited.stdout)).toEqual(lines(page2.stdout).slice(0, 3));
  });
});

describe('error 2001 is said in words that fit what was asked for', () => {
  it('a playlist or group that does not exist is "not found", with no word of labels (which license catalogue entities only)', async () => {
    const [playlist, group, track] = await Promise.all([
      run(['playlist', 'show', 'ffffffffffffffffffffffff']),
      run(['group', 'show', 'aaaaaaaaaaaaaaaaaaaaaaaa']),
      run(['track', 'metadata', '1']),
    ]);
    expect(playlist.exitCode).toBe(1);
    expect(playlist.stdout).toBe('');
    expect(playlist.stderr).toMatch(/^mcat: Playlist not found \(2001, HTTP 404\)$/m);
    expect(group.exitCode).toBe(1);
    expect(group.stderr).toMatch(/^mcat: Playlist group not found \(2001, HTTP 404\)$/m);
    for (const r of [playlist, group]) expect(r.stderr).not.toMatch(/label/);
    // the catalogue keeps the code's full meaning
    expect(track.stderr).toMatch(/^mcat: Track not found, or owned by a label not licensed for this partner \(2001, HTTP 404\)$/m);
  });
});

describe('-o is checked by every command', () => {
  it('an unknown format is a usage error (exit 2, stdout empty) also where no listing is printed', async () => {
    const runs = await Promise.all([
      run(['sandbox', 'info', '--data', box.sb.dataDir, '-o', 'yaml']),
      run(['version', '-o', 'yaml']),
      run(['api', 'GET', '/1.2/user/locker', '-o', 'yaml']),
      run(['completion', 'bash', '-o', 'yaml']),
    ]);
    for (const r of runs) {
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^mcat: unknown output format 'yaml'$/m);
    }
  });

  it('-o json or ndjson on a command that prints no JSON is refused as --json is (a pipe to jq never gets a non-JSON line)', async () => {
    const runs = await Promise.all([
      run(['version', '-o', 'json']),
      run(['completion', 'bash', '-o', 'ndjson']),
      run(['profile', 'use', 'sandbox', '-o', 'json']),
    ]);
    const names = ['version', 'completion', 'profile use'];
    runs.forEach((r, i) => {
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`mcat: -o ${i === 1 ? 'ndjson' : 'json'}: 'mcat ${names[i]}' prints no JSON\n`);
    });
    // a command that writes a file keeps its own word on -o; version alone still prints
    const [download, version] = await Promise.all([
      run(['locker', 'download', String(box.sb.info.examples.trackIds[0]), '-o', 'json']),
      run(['version']),
    ]);
    expect(download.exitCode).toBe(2);
    expect(download.stderr).toMatch(/^mcat: locker download writes a file, not a 'json' listing$/m);
    expect(version.exitCode).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('sandbox info refuses the formats it has no form for, as auth status does; ndjson is its document on one line', async () => {
    for (const f of ['csv', 'tsv', 'xml']) {
      const r = await run(['sandbox', 'info', '--data', box.sb.dataDir, '-o', f]);
      expect(r.exitCode, f).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`mcat: sandbox info prints a table, json or ndjson, not ${f}\n`);
    }
    const n = await run(['sandbox', 'info', '--data', box.sb.dataDir, '-o', 'ndjson']);
    expect(n.exitCode, n.stderr).toBe(0);
    expect(n.stdout.split('\n')).toHaveLength(2);
    expect(JSON.parse(n.stdout).examples.groupId).toBe(box.sb.info.examples.groupId);
  });

  it("sandbox info into a pipe is JSON, as every command's default there (CONVENTIONS.md); the sheet with -o table", async () => {
    const [pipe, sheet] = await Promise.all([run(['sandbox', 'info', '--data', box.sb.dataDir]), run(['sandbox', 'info', '--data', box.sb.dataDir, '-o', 'table'])]);
    expect(pipe.exitCode, pipe.stderr).toBe(0);
    expect(JSON.parse(pipe.stdout)).toMatchObject({ seed: box.sb.info.seed, examples: { groupId: box.sb.info.examples.groupId } });
    expect(sheet.exitCode, sheet.stderr).toBe(0);
    expect(sheet.stdout).toMatch(/^data dir {5}\S/);
  });

  it('auth status and --dry-run name every format they print (ndjson too) when they refuse one', async () => {
    const status = await run(['auth', 'status', '--no-verify', '-o', 'csv']);
    expect(status.exitCode).toBe(2);
    expect(status.stdout).toBe('');
    expect(status.stderr).toMatch(/^mcat: auth status prints a table, json or ndjson, not csv$/m);
    const nd = await run(['auth', 'status', '--no-verify', '-o', 'ndjson']);
    expect(nd.exitCode, nd.stderr).toBe(0);
    expect(lines(nd.stdout)).toHaveLength(1);
    const edits = join(mkdtempSync(join(tmpdir(), 'mcat-audit-')), 'edits.ndjson');
    writeFileSync(edits, JSON.stringify({ op: 'details', playlistId: box.sb.info.examples.playlistIds[0], description: 'x' }) + '\n');
    const dry = await run(['playlist', 'apply', edits, '--dry-run', '-o', 'xml']);
    expect(dry.exitCode).toBe(2);
    expect(dry.stderr).toMatch(/^mcat: --dry-run prints a table, json or ndjson, not xml$/m);
  });

  it('the auth status sheet fits the width: no line wider than COLUMNS, nothing of it lost; at 80 columns as before', async () => {
    const home = tempHome();
    const wide = await run(['auth', 'status', '--no-verify', '-o', 'table'], { home, env: { COLUMNS: '200' } });
    expect(wide.exitCode, wide.stderr).toBe(0);
    const words = (t: string) => t.replace(/\s+/g, '');
    for (const cols of ['80', '40', '30']) {
      const r = await run(['auth', 'status', '--no-verify', '-o', 'table'], { home, env: { COLUMNS: cols } });
      expect(r.exitCode, r.stderr).toBe(0);
      for (const line of lines(r.stdout)) expect([...line].length, `${cols}: ${line}`).toBeLessThanOrEqual(Number(cols));
      // the same characters in the same order: wrapped, never cut
      expect(words(r.stdout)).toBe(words(wide.stdout));
      if (cols === '80') expect(r.stdout).toBe(wide.stdout);
    }
  });

  it('the sandbox info sheet fits the width: no line wider than COLUMNS, every example id still there', async () => {
    for (const cols of ['80', '60']) {
      const r = await run(['sandbox', 'info', '--data', box.sb.dataDir, '-o', 'table'], { env: { COLUMNS: cols } });
      expect(r.exitCode, r.stderr).toBe(0);
      for (const line of r.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(Number(cols));
      for (const id of [...box.sb.info.examples.playlistIds, box.sb.info.examples.groupId, ...box.sb.info.examples.trackIds.map(String)]) expect(r.stdout).toContain(id);
    }
  });
});

describe('release batch says what it printed', () => {
  it('when no id could be read it does not say "the others were printed" (exit 3 and the ids on stderr as before)', async () => {
    const unknown = String(box.sb.info.examples.unknownReleaseId);
    const [none, some] = await Promise.all([
      run(['release', 'batch', unknown, '-o', 'json']),
      run(['release', 'batch', unknown, String(box.sb.info.examples.releaseIds[0]), '-o', 'json']),
    ]);
    expect(none.exitCode).toBe(3);
    expect(JSON.parse(none.stdout).items.releases).toEqual([]);
    expect(none.stderr).toMatch(new RegExp(`^mcat: release ${unknown}: Release not found \\(2001\\)$`, 'm'));
    expect(none.stderr).toMatch(/^mcat: 1 of 1 release id could not be read$/m);
    expect(some.exitCode).toBe(3);
    expect(some.stderr).toMatch(/^mcat: 1 of 2 release ids could not be read; the others were printed$/m);
  });
});
