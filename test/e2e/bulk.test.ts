// End to end: bulk playlist edits (`playlist apply`, `playlist export`) against sandboxes:
// 1,000 edits verified, bad input refused whole, partial failure and its report, SIGKILL and
// resume, backup and restore into an empty user, and a run through injected faults.
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, promises as fsp } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { execa } from 'execa';
import { sandboxPerTest, type startTestSandbox } from '../helpers/sandbox';
import { binPath, cliNode, mcatEnv, repoRoot, tempHome } from '../helpers/mcat';
import { mcatIn as mcat } from '../helpers/mcat-in';
import { hostileEnv, hostilePerTest, jsonOf } from '../helpers/hostile-server';

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;

 

const sandbox = sandboxPerTest();
const hostile = hostilePerTest();

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'mcat-bulk-'));
}

function ndjson(edits: unknown[]): string {
  return edits.map((e) => JSON.stringify(e)).join('\n') + '\n';
}

function userEnv(sb: Sandbox, userId: string): Record<string, string> {
  const u = sb.info.users.find((x: any) => x.userId === userId)!;
  return { MCAT_TOKEN: u.token, MCAT_TOKEN_SECRET: u.tokenSecret };
}

/** One user's runs: one HOME, so that a run finds the journals (under ~/.local/state) of the one before. */
function runner(sb: Sandbox, env: Record<string, string> = {}) {
  const home = tempHome();
  return (args: string[], opts: Parameters<typeof mcat>[1] = {}) => mcat(args, { sandboxDir: sb.dataDir, env, home, timeout: 120_000, ...opts });
}

const journalsOf = (home: string) => {
  const d = join(home, '.local/state/mcat/journals');
  return existsSync(d) ? readdirSync(d).filter((n) => n.endsWith('.journal')) : [];
};

async function allPlaylists(run: ReturnType<typeof runner>): Promise<any[]> {
  const r = await run(['playlist', 'export']);
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout.trim() ? r.stdout.trim().split('\n').map((l) => JSON.parse(l)) : [];
}

async function groupOf(run: ReturnType<typeof runner>, gid: string): Promise<any> {
  const r = await run(['group', 'show', gid, '-o', 'json']);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout).playlistGroup;
}

const hexId = (n: number) => n.toString(16).padStart(24, '0');

describe('playlist apply', () => {
  it('1,000 edits (creates, replaces, details, group edits) are applied and verified one by one', async () => {
    const sb = await sandbox();
    const run = runner(sb);
    const t = sb.info.examples.trackIds;
    const [p1, p2, p3] = sb.info.examples.playlistIds;
    const gid = hexId(0x5150);
    const edits: any[] = [{ op: 'group-replace', groupId: gid, name: 'Bulk group', playlistIds: [p1] }];
    for (let i = 0; i < 700; i++) {
      edits.push({ op: 'create', name: `bulk-${i}`, visibility: i % 2 ? 'public' : 'private', annotations: { n: String(i) }, tracks: [{ trackId: t[i % t.length], trackTitle: `t${i}` }, { trackId: t[(i + 1) % t.length] }] });
    }
    for (let i = 0; i < 200; i++) {
      const id = [p1, p2, p3][i % 3];
      edits.push(i % 2 ? { op: 'details', playlistId: id, description: `details ${i}` } : { op: 'replace', playlistId: id, name: `replaced ${i}`, tracks: [{ trackId: t[i % t.length] }] });
    }
    for (let i = 0; i < 99; i++) edits.push({ op: 'group-add', groupId: gid, playlistIds: [[p2, p3, p1][i % 3]] });
    expect(edits).toHaveLength(1000);
    const d = tempDir();
    const file = join(d, 'edits.ndjson');
    writeFileSync(file, ndjson(edits));
    const home = tempHome();
    const r = await run(['playlist', 'apply', file, '--verify', '--concurrency', '16'], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/1000 applied, 0 failed of 1000 edits/);
    expect(r.stderr).toMatch(/verified \d+ playlists/);
    // the journal is kept in the state folder, not beside the input
    expect(existsSync(file + '.journal')).toBe(false);
    expect(journalsOf(home)).toEqual([expect.stringMatching(/^edits\.ndjson-[0-9a-f]{16}\.journal$/)]);

    // one by one: every create exists exactly once with its fields and tracks, no marker left
    const all = await allPlaylists(run);
    const byName = new Map<string, any[]>();
    for (const p of all) byName.set(p.name, [...(byName.get(p.name) ?? []), p]);
    for (let i = 0; i < 700; i++) {
      const got = byName.get(`bulk-${i}`) ?? [];
      expect(got, `bulk-${i}`).toHaveLength(1);
      const e = edits[i + 1];
      expect(got[0].visibility).toBe(e.visibility);
      expect(got[0].annotations).toEqual({ n: String(i) });
      expect(got[0].tracks.map((x: any) => x.trackId)).toEqual(e.tracks.map((x: any) => String(x.trackId)));
      expect(got[0].tracks[0].trackTitle).toBe(`t${i}`);
    }
    // the seeded playlists hold their last edits, in input order
    const last = (id: string, key: string) => [...edits].reverse().find((e) => e.playlistId === id && e[key] !== undefined)[key];
    for (const id of [p1, p2, p3]) {
      const p = all.find((x) => x.playlistId === id);
      expect(p.name).toBe(last(id, 'name'));
      expect(p.description).toBe(last(id, 'description'));
      expect(p.tracks.map((x: any) => x.trackId)).toEqual(last(id, 'tracks').map((x: any) => String(x.trackId)));
    }
    const g = await groupOf(run, gid);
    expect(g.name).toBe('Bulk group');
    expect(g.playlists.map((p: any) => p.id)).toEqual([p1, p2, p3]);
  }, 60_000);

  it('a file with bad lines is refused whole: every bad line named, exit 2, nothing changed', async () => {
    const sb = await sandbox();
    const run = runner(sb);
    const before = await allPlaylists(run);
    const [p1] = sb.info.examples.playlistIds;
    const lines = [
      JSON.stringify({ op: 'create', name: 'fine' }),
      JSON.stringify({ op: 'details', playlistId: p1, name: 'fine too' }),
      JSON.stringify({ op: 'replace', playlistId: 'NOT-AN-ID', tracks: [] }),
      JSON.stringify({ op: 'create', name: 'ok' }),
      '{"op": "details", "playlistId": ',
      JSON.stringify({ op: 'explode' }),
      JSON.stringify({ op: 'replace', playlistId: p1, tracks: [{ trackId: -1 }] }),
      JSON.stringify({ op: 'details', playlistId: p1, status: 'live' }),
    ];
    const d = tempDir();
    const file = join(d, 'bad.ndjson');
    writeFileSync(file, lines.join('\n') + '\n');
    const r = await run(['playlist', 'apply', file]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    for (const n of [3, 5, 6, 7, 8]) expect(r.stderr).toContain(`bad.ndjson:${n}:`);
    for (const n of [1, 2, 4]) expect(r.stderr).not.toContain(`bad.ndjson:${n}:`);
    expect(r.stderr).toMatch(/5 bad lines .*nothing was sent/);
    expect(r.stderr).not.toMatch(/sandbox/);
    expect(readdirSync(d)).toEqual(['bad.ndjson']);
    expect(await allPlaylists(run)).toEqual(before);

    // from stdin too, and a CSV track list with a bad row
    const csv = `playlistId,trackId\n${p1},1\n${p1},x\n`;
    const r2 = await run(['playlist', 'apply', '-', '--input-format', 'csv'], { input: csv, cwd: d });
    expect(r2.exitCode).toBe(2);
    expect(r2.stderr).toContain('stdin:3:');
    expect(await allPlaylists(run)).toEqual(before);
  }, 60_000);

  it('edits from a named pipe are read as from a file; a missing file or a folder is one line, exit 2, nothing sent', async () => {
    const sb = await sandbox();
    const run = runner(sb);
    const [p1] = sb.info.examples.playlistIds;
    const d = tempDir();
    const fifo = join(d, 'edits.ndjson');
    execFileSync('mkfifo', [fifo]);
    // the writer opens the pipe in the thread pool: it waits there for mcat to open it for reading
    const writer = fsp.writeFile(fifo, ndjson([{ op: 'details', playlistId: p1, description: 'from a pipe' }]));
    const r = await run(['playlist', 'apply', fifo, '--journal', join(d, 'journal')]);
    await writer;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/1 applied, 0 failed of 1 edit in /);
    expect((await allPlaylists(run)).find((p) => p.playlistId === p1)?.description).toBe('from a pipe');

    const before = await allPlaylists(run);
    for (const [what, path] of [['no such file', join(d, 'missing.ndjson')], ['is a directory', d]]) {
      const bad = await run(['playlist', 'apply', path]);
      expect(bad.exitCode).toBe(2);
      expect(bad.stdout).toBe('');
      expect(bad.stderr.split('\n')[0]).toBe(`mcat: cannot read ${path}: ${what}`);
    }
    expect(await allPlaylists(run)).toEqual(before);
  }, 60_000);

  it('partial failure: exit 3, summary on stderr, a report naming each failed edit; none applied: exit 1', async () => {
    const sb = await sandbox();
    const run = runner(sb);
    const [p1, p2] = sb.info.examples.playlistIds;
    const missing = hexId(0xbad1);
    const edits = [
      { op: 'details', playlistId: p1, name: 'ok 1' },
      { op: 'replace', playlistId: missing, tracks: [] },
      { op: 'details', playlistId: p2, name: 'ok 2' },
      { op: 'group-add', groupId: hexId(0xbad3), playlistIds: [p1] },
      { op: 'create', name: 'ok 3' },
    ];
    const d = tempDir();
    const file = join(d, 'partial.ndjson');
    writeFileSync(file, ndjson(edits));
    const report = join(d, 'report.ndjson');
    const r = await run(['playlist', 'apply', file, '--report', report]);
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/3 applied, 2 failed of 5 edits/);
    expect(r.stderr).toContain('partial.ndjson:2: replace failed');
    expect(r.stderr).toContain('partial.ndjson:4: group-add failed');
    const lines = readFileSync(report, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.line, l.outcome, l.edit.op, l.code])).toEqual([
      [2, 'failed', 'replace', 2001],
      [4, 'failed', 'group-add', 2001],
    ]);
    expect(lines[0].edit.playlistId).toBe(missing);
    expect(lines[0].message).toBeTruthy();

    // text from the file (and the server) in the report: C1 escaped as on stdout, the value kept
    const hostileName = 'Missing \u001b[2J\u009b31m';
    const c1 = join(d, 'c1.ndjson');
    writeFileSync(c1, ndjson([{ op: 'replace', playlistId: missing, name: hostileName, tracks: [] }]));
    const c1Report = join(d, 'c1-report.ndjson');
    expect((await run(['playlist', 'apply', c1, '--report', c1Report])).exitCode).toBe(1);
    const raw = readFileSync(c1Report, 'utf8');
    expect(raw).not.toMatch(/[\u0080-\u009f\u001b]/);
    expect(raw).toContain('\\u009b');
    expect(JSON.parse(raw).edit.name).toBe(hostileName);

    // all fail: exit 1
    const file2 = join(d, 'none.ndjson');
    writeFileSync(file2, ndjson([{ op: 'details', playlistId: missing, name: 'x' }]));
    const r2 = await run(['playlist', 'apply', file2, '--report', join(d, 'r2.ndjson')]);
    expect(r2.exitCode).toBe(1);
    expect(r2.stderr).toMatch(/^mcat: the one edit could not be applied$/m);

    // a journal with failures without --resume is refused; --resume skips what is done and retries the failures
    const again = await run(['playlist', 'apply', file]);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toMatch(/holds an unfinished run of these edits \(3 of 5 done, 2 failed\)/);
    const resumed = await run(['playlist', 'apply', file, '--resume']);
    expect(resumed.exitCode).toBe(3);
    expect(resumed.stderr).toMatch(/0 applied, 3 already done, 2 failed/);
  }, 60_000);

  it("another user's playlists: exit 4, said as a single command says it (the credentials are fine: their token), not as bad credentials", async () => {
    const sb = await sandbox();
    const theirs = runner(sb, userEnv(sb, '10002'));
    const ids: string[] = [];
    for (const name of ['theirs 1', 'theirs 2']) {
      const made = await theirs(['playlist', 'create', '--name', name, '-o', 'json']);
      expect(made.exitCode, made.stderr).toBe(0);
      ids.push(JSON.parse(made.stdout).playlist.id);
    }
    const run = runner(sb);
    const single = await run(['playlist', 'details', ids[0], '--name', 'x']);
    expect(single.exitCode).toBe(4);
    const [said, hint] = single.stderr.split('\n').filter((l) => /^(mcat: access|hint: )/.test(l));
    expect(said).toMatch(/^mcat: access denied: this is not the data of the token's user .*; the credentials are fine \(HTTP 401\)$/);
    const d = tempDir();
    for (const [n, lead] of [[1, 'the one edit could not be applied'], [2, 'none of the 2 edits could be applied']] as const) {
      const file = join(d, `theirs-${n}.ndjson`);
      writeFileSync(file, ndjson(ids.slice(0, n).map((playlistId) => ({ op: 'details', playlistId, name: 'x' }))));
      const r = await run(['playlist', 'apply', file]);
      expect(r.exitCode, r.stderr).toBe(4);
      const lines = r.stderr.trim().split('\n');
      expect(lines.at(-2)).toBe(`mcat: ${lead}: ${said.slice('mcat: '.length)}`);
      expect(lines.at(-1)).toBe(hint);
      expect(r.stderr).not.toMatch(/authentication failed|check the profile's credentials/);
    }
  }, 60_000);

  it('--dry-run says what each edit would change and sends nothing', async () => {
    const sb = await sandbox();
    const run = runner(sb);
    const before = await allPlaylists(run);
    const [p1] = sb.info.examples.playlistIds;
    const d = tempDir();
    const file = join(d, 'dry.ndjson');
    writeFileSync(file, ndjson([{ op: 'details', playlistId: p1, name: 'Dry' }, { op: 'create', name: 'New one' }, { op: 'replace', playlistId: hexId(1), tracks: [] }]));
    const r = await run(['playlist', 'apply', file, '--dry-run', '-o', 'table']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('name: "Morning Commute" -> "Dry"');
    expect(r.stdout).toContain('would create playlist "New one" with 0 tracks');
    expect(r.stdout).toMatch(/would fail/);
    expect(r.stdout).toMatch(/nothing was sent/);
    const j = await run(['playlist', 'apply', file, '--dry-run', '-o', 'json']);
    expect(JSON.parse(j.stdout).map((p: any) => p.action)).toEqual(['change', 'create', 'fail']);
    // the plan fits the terminal: a wide line wrapped under itself, nothing cut (every word there)
    const wide = join(d, 'wide.ndjson');
    const description = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    writeFileSync(wide, ndjson([{ op: 'details', playlistId: p1, description }]));
    const narrow = await run(['playlist', 'apply', wide, '--dry-run', '-o', 'table'], { env: { COLUMNS: '60' } });
    expect(narrow.exitCode, narrow.stderr).toBe(0);
    const shown = narrow.stdout.trimEnd().split('\n');
    for (const line of shown) expect(line.length, line).toBeLessThanOrEqual(60);
    expect(narrow.stdout).not.toContain('…');
    const joined = shown.map((l) => l.trim()).join(' ');
    expect(joined).toContain(description);
    expect(joined).toMatch(/dry run: 1 edit: 1 would change, .* nothing was sent$/);
    rmSync(wide);
    expect(await allPlaylists(run)).toEqual(before);
    expect(readdirSync(d)).toEqual(['dry.ndjson']);
    // a state it could not read is no plan: refused credentials exit 4, an unreachable service 1; stdout empty
    const refused = await run(['playlist', 'apply', file, '--dry-run', '-o', 'json'], { env: { MCAT_TOKEN: 'tok-bogus', MCAT_TOKEN_SECRET: 'x' } });
    expect(refused.exitCode, refused.stderr).toBe(4);
    expect(refused.stdout).toBe('');
    const c = sb.info.consumers.find((x: any) => x.countries.length > 1)!;
    const down = await run(['playlist', 'apply', file, '--dry-run', '-o', 'json', '--retries', '0'], {
      env: { MCAT_BASE_URL: 'http://127.0.0.1:9', MCAT_CONSUMER_KEY: c.key, MCAT_CONSUMER_SECRET: c.secret, ...userEnv(sb, '10001'), MCAT_COUNTRY: 'GB' },
    });
    expect(down.exitCode, down.stderr).toBe(1);
    expect(down.stdout).toBe('');
  }, 60_000);

  it('killed with SIGKILL part-way and resumed: every edit applied exactly once in effect', async () => {
    // latency makes the run long enough to kill in the middle
    const sb = await sandbox({ faults: 'latency=15ms' });
    const run = runner(sb);
    const t = sb.info.examples.trackIds;
    const [p1, p2, p3] = sb.info.examples.playlistIds;
    const gid = hexId(0x4b111);
    const edits: any[] = [{ op: 'group-replace', groupId: gid, name: 'Kill group', playlistIds: [] }];
    for (let i = 0; i < 240; i++) {
      edits.push({ op: 'create', name: `kill-${i}`, tracks: [{ trackId: t[i % t.length] }] });
      if (i % 4 === 0) edits.push({ op: 'group-add', groupId: gid, playlistIds: [[p1, p2, p3][i % 3]] });
      if (i % 6 === 0) edits.push({ op: 'details', playlistId: [p1, p2, p3][i % 3], description: `kill ${i}` });
    }
    const d = tempDir();
    const file = join(d, 'kill.ndjson');
    writeFileSync(file, ndjson(edits));
    const journal = join(d, 'kill.journal');
    const child = execa(cliNode, [binPath, 'playlist', 'apply', file, '--concurrency', '8', '--journal', journal], {
      env: mcatEnv({ sandboxDir: sb.dataDir }) as Record<string, string>,
      extendEnv: true,
      cwd: repoRoot,
      reject: false,
      stdin: 'ignore',
    });
    const done = () => (existsSync(journal) ? readFileSync(journal, 'utf8').split('\n').filter((l) => l.includes('"type":"done"')).length : 0);
    const t0 = Date.now();
    while (done() < edits.length / 3 && Date.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    const killed = await child;
    expect(killed.signal).toBe('SIGKILL');
    const doneAtKill = done();
    expect(doneAtKill).toBeGreaterThan(0);
    expect(doneAtKill).toBeLessThan(edits.length);
    // the killed run's lock is left behind, naming it
    const claims = readdirSync(`${journal}.lock`).filter((n) => /^\d+$/.test(n)).map(Number);
    expect(JSON.parse(readFileSync(join(`${journal}.lock`, String(Math.max(...claims))), 'utf8')).pid).toBe(child.pid);

    const r = await run(['playlist', 'apply', file, '--resume', '--concurrency', '8', '--journal', journal]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/resuming/);
    expect(r.stderr).toContain(`took over the lock of an earlier run (pid ${child.pid}), which is no longer running`);
    expect(r.stderr).toMatch(new RegExp(`of ${edits.length} edits`));

    const all = await allPlaylists(run);
    for (let i = 0; i < 240; i++) expect(all.filter((p) => p.name === `kill-${i}`), `kill-${i}`).toHaveLength(1);
    expect(all.filter((p) => Object.keys(p.annotations).some((k) => k === 'mcat:apply'))).toEqual([]);
    expect(all).toHaveLength(3 + 240);
    const g = await groupOf(run, gid);
    const ids = g.playlists.map((p: any) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([p1, p2, p3].sort());
    // a second resume has nothing left to do
    const again = await run(['playlist', 'apply', file, '--resume', '--journal', journal]);
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toMatch(/nothing to do/);
    expect(again.stderr).toMatch(new RegExp(`0 applied, ${edits.length} already done`));
  }, 60_000);
  // SIGHUP (the terminal closed) as Ctrl-C: it ended the run on the spot, with no end record, no report
  for (const signal of ['SIGINT', 'SIGHUP'] as const) it(`${signal === 'SIGINT' ? 'Ctrl-C' : signal} finishes and journals the edits in flight, exits 130; --resume applies the rest once`, async () => {
    const sb = await sandbox({ faults: 'latency=15ms' });
    const run = runner(sb);
    const edits = Array.from({ length: 300 }, (_, i) => ({ op: 'create', name: `int-${i}` }));
    const d = tempDir();
    const file = join(d, 'int.ndjson');
    writeFileSync(file, ndjson(edits));
    const journal = join(d, 'int.journal');
    const child = execa(cliNode, [binPath, 'playlist', 'apply', file, '--report', join(d, 'report.ndjson'), '--journal', journal], {
      env: mcatEnv({ sandboxDir: sb.dataDir }) as Record<string, string>,
      extendEnv: true,
      cwd: repoRoot,
      reject: false,
      stdin: 'ignore',
    });
    const done = () => (existsSync(journal) ? readFileSync(journal, 'utf8').split('\n').filter((l) => l.includes('"type":"done"')).length : 0);
    const t0 = Date.now();
    while (done() < 60 && Date.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 20));
    child.kill(signal);
    const r = await child;
    expect(r.exitCode, String(r.stderr)).toBe(130);
    expect(String(r.stderr)).toMatch(/not applied \(interrupted\)/);
    expect(String(r.stderr)).toMatch(/run again with --resume/);
    const records = readFileSync(journal, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(records[records.length - 1]).toMatchObject({ type: 'end', interrupted: true });
    const pending = readFileSync(join(d, 'report.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(pending.length).toBeGreaterThan(0);
    expect(pending.every((l) => l.outcome === 'interrupted')).toBe(true);

    const again = await run(['playlist', 'apply', file, '--resume', '--journal', journal]);
    expect(again.exitCode, again.stderr).toBe(0);
    const all = await allPlaylists(run);
    for (let i = 0; i < 300; i++) expect(all.filter((p) => p.name === `int-${i}`), `int-${i}`).toHaveLength(1);
  }, 60_000);
});

describe('a resumed run keeps each playlist\'s and group\'s edits in input order', () => {
  it('an edit that failed is applied on resume before the later edits of its group, which are applied again: the last wins', async () => {
    const sb = await sandbox();
    const run = runner(sb);
    const [p1, p2] = sb.info.examples.playlistIds;
    const gid = hexId(0xfeed01);
    const dir = tempDir();
    const file = join(dir, 'order.ndjson');
    // line 1 fails the first time (no such group yet); line 2 makes the group
    writeFileSync(file, ndjson([
      { op: 'group-add', groupId: gid, playlistIds: [p1] },
      { op: 'group-replace', groupId: gid, name: 'Final', playlistIds: [p2] },
    ]));
    const first = await run(['playlist', 'apply', file]);
    expect(first.exitCode, first.stderr).toBe(3);
    expect((await groupOf(run, gid)).playlists.map((p: any) => p.id)).toEqual([p2]);
    const again = await run(['playlist', 'apply', file, '--resume']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/1 of them is applied again, after the earlier edit of its playlist or group still to do/);
    // in input order: the add, then the replace, as one run that met no failure would leave it
    expect((await groupOf(run, gid)).playlists.map((p: any) => p.id)).toEqual([p2]);
  });
});

describe('--verify of a resumed run', () => {
  it('reads the playlists earlier sessions created where they are: no false "not found", every create checked', async () => {
    const sb = await sandbox();
    const run = runner(sb);
    const [p1] = sb.info.examples.playlistIds;
    const t = sb.info.examples.trackIds;
    const gid = hexId(0xfeed02);
    const dir = tempDir();
    const file = join(dir, 'vr.ndjson');
    writeFileSync(file, ndjson([
      { op: 'replace', playlistId: hexId(0xab), ifMissing: 'create', name: 'VR copy', tracks: [{ trackId: t[0] }] },
      { op: 'create', name: 'VR new', tracks: [{ trackId: t[1] }] },
      { op: 'group-add', groupId: gid, playlistIds: [p1] },
    ]));
    const first = await run(['playlist', 'apply', file, '--verify']);
    expect(first.exitCode, first.stderr).toBe(3);
    expect((await run(['group', 'replace', gid, '--name', 'G'])).exitCode).toBe(0);
    const again = await run(['playlist', 'apply', file, '--resume', '--verify']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/not found|differs/);
    expect(again.stderr).toMatch(/verified 2 playlists/);
  });
});

describe('track metadata in --dry-run and --verify', () => {
  it('a run with metadata-carrying tracks verifies (the filled-in catalogue fields are no mismatch); a dry run then shows a title change, no change for the same file', async () => {
    const sb = await sandbox();
    const run = runner(sb);
    const [p1] = sb.info.examples.playlistIds;
    const t = sb.info.examples.trackIds.map(String);
    const meta = { trackVersion: 'Live', artistAppearsAs: 'A', releaseId: 100002, releaseTitle: 'R', releaseArtistAppearsAs: 'RA', releaseVersion: '' };
    const edits = (title: string) => [
      { op: 'replace', playlistId: p1, tracks: [{ trackId: t[0], trackTitle: title, ...meta }, { trackId: Number(t[1]), releaseId: '0100003' }, { trackId: t[2] }, { trackId: t[0], trackTitle: `${title} again` }] },
      { op: 'create', name: 'Metadata verified', tracks: [{ trackId: t[3], trackTitle: 'Mine', releaseId: '100004' }, { trackId: t[4] }] },
    ];
    const dir = tempDir();
    const file = join(dir, 'meta.ndjson');
    writeFileSync(file, ndjson(edits('T1')));
    const r = await run(['playlist', 'apply', file, '--verify']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/differs/);
    expect(r.stderr).toMatch(/verified 2 playlists/);

    const same = await run(['playlist', 'apply', file, '--dry-run', '-o', 'json']);
    expect(same.exitCode, same.stderr).toBe(0);
    expect(JSON.parse(same.stdout)[0]).toMatchObject({ action: 'no-change', diff: { unchanged: true, tracksChanged: [] } });

    const changed = join(dir, 'meta-2.ndjson');
    writeFileSync(changed, ndjson(edits('T2').slice(0, 1)));
    const dry = await run(['playlist', 'apply', changed, '--dry-run', '-o', 'table']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`~ track ${t[0]} "T1" trackTitle: "T1" -> "T2"`);
    expect(dry.stdout).toContain(`~ track ${t[0]} "T1 again" trackTitle: "T1 again" -> "T2 again"`);
    expect(dry.stdout).toMatch(/1 would change, 0 would create, 0 group edits, 0 unchanged/);
  }, 60_000);

  it('--verify reports a track title the service did not keep (it said the playlist held what the edits asked for)', async () => {
    const s = await hostile();
    const pid = 'ad0ed2b4b45b8d81945103f4';
    // the service answers the replace, but shows the track with the title it had
    const playlist = { id: pid, name: 'P', status: 'Draft', visibility: 'Private', description: '', annotations: {}, tracks: [{ id: 'e1', trackId: '10000101', trackTitle: 'Old' }] };
    s.on(`/1.2/playlists/${pid}`, jsonOf(() => ({ status: 'ok', version: '1.2', playlist })));
    const d = tempDir();
    const file = join(d, 'title.ndjson');
    writeFileSync(file, ndjson([{ op: 'replace', playlistId: pid, tracks: [{ trackId: '10000101', trackTitle: 'New' }] }]));
    const r = await mcat(['playlist', 'apply', file, '--verify'], { env: hostileEnv(s, { MCAT_USER_ID: '10001' }), home: tempHome(), timeout: 60_000 });
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stderr).toContain(`title.ndjson:1: playlist ${pid} differs: tracks: 1 -> 1 (0 added, 0 removed, 0 moved, 1 changed);   ~ track 10000101 "Old" trackTitle: "Old" -> "New"`);
    expect(r.stderr).toMatch(/verify: 1 of 1 playlists do not hold what the edits asked for/);
  }, 60_000);
});

describe('playlist export', () => {
  it('a restore clears an image given since the export (no image is exported as "")', async () => {
    const sb = await sandbox();
    const run = runner(sb);
    const dir = tempDir();
    const backup = join(dir, 'backup.ndjson');
    expect((await run(['playlist', 'create', '--name', 'No image'])).exitCode).toBe(0);
    const exp = await run(['playlist', 'export']);
    expect(exp.exitCode, exp.stderr).toBe(0);
    writeFileSync(backup, exp.stdout);
    const lines = exp.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const plain = lines.find((l) => l.imageUrl === '');
    expect(plain, 'a playlist with no image').toBeDefined();
    expect((await run(['playlist', 'details', plain.playlistId, '--image-url', 'https://img.example/new.jpg'])).exitCode).toBe(0);
    const restore = await run(['playlist', 'apply', backup, '--verify']);
    expect(restore.exitCode, restore.stderr).toBe(0);
    const shown = JSON.parse((await run(['playlist', 'show', plain.playlistId, '-o', 'json'])).stdout).playlist;
    expect(shown.image ?? '').toBe('');
  });

  it('export then apply into an empty user reproduces every playlist', async () => {
    const sb = await sandbox();
    const owner = runner(sb);
    const t = sb.info.examples.trackIds;
    // give the owner a playlist with every field and track metadata
    const d = tempDir();
    const body = {
      name: 'Full ✓', status: 'published', visibility: 'public', description: 'd'.repeat(10), imageUrl: 'https://img.example/f.jpg',
      annotations: { a: '1', b: '' },
      tracks: t.slice(0, 3).map((x, i) => ({ trackId: String(x), trackTitle: `T${i}`, trackVersion: 'v', artistAppearsAs: 'A', releaseId: 77, releaseTitle: 'R', releaseArtistAppearsAs: 'RA', releaseVersion: 'RV' })),
    };
    writeFileSync(join(d, 'full.json'), JSON.stringify(body));
    const c = await owner(['playlist', 'create', '--name', 'x', '-o', 'json']);
    const id = JSON.parse(c.stdout).playlist.id;
    expect((await owner(['playlist', 'replace', id, '--from', join(d, 'full.json'), '-o', 'json'])).exitCode).toBe(0);

    const exp = await owner(['playlist', 'export']);
    expect(exp.exitCode, exp.stderr).toBe(0);
    expect(exp.stderr).toMatch(/exported 4 playlists/);
    const backup = join(d, 'backup.ndjson');
    writeFileSync(backup, exp.stdout);
    const original = exp.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(original).toHaveLength(4);
    expect(original.every((e) => e.op === 'replace' && e.ifMissing === 'create')).toBe(true);

    const emptyUser = sb.info.examples.emptyUser;
    const target = runner(sb, userEnv(sb, emptyUser));
    expect(await allPlaylists(target)).toEqual([]);
    const r = await target(['playlist', 'apply', backup, '--verify']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/4 playlists created/);
    const restored = await allPlaylists(target);
    // compared by name: concurrent creates may land in any order
    const strip = (list: any[]) => list.map((e) => ({ ...e, playlistId: undefined })).sort((a, b) => a.name.localeCompare(b.name));
    expect(strip(restored)).toEqual(strip(original));
    // and the copies are new playlists of the empty user, not the owner's
    for (const e of restored) expect(original.map((o) => o.playlistId)).not.toContain(e.playlistId);

    // applying the backup to the owner again restores in place (replace), creating nothing
    const again = await owner(['playlist', 'apply', backup, '--journal', join(d, 'again.journal')]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(await allPlaylists(owner)).toEqual(original);
  }, 60_000);

  it('the restore run again (a plain rerun, a cron job): the playlists the first run created are replaced, none made twice; as another user, their own copies, and each user’s kept', async () => {
    const sb = await sandbox();
    const exp = await runner(sb)(['playlist', 'export']);
    expect(exp.exitCode, exp.stderr).toBe(0);
    const n = exp.stdout.trim().split('\n').length;
    expect(n).toBeGreaterThan(1);
    const backup = join(tempDir(), 'backup.ndjson');
    writeFileSync(backup, exp.stdout);
    // one HOME for both users: their runs of this file share its default journal
    const home = tempHome();
    const as = (userId: string) => (args: string[]) => mcat(args, { sandboxDir: sb.dataDir, env: userEnv(sb, userId), home, timeout: 120_000 });
    const ids = async (userId: string) => {
      const r = await as(userId)(['playlist', 'list', '--all', '-o', 'ndjson']);
      expect(r.exitCode, r.stderr).toBe(0);
      return r.stdout.trim() ? r.stdout.trim().split('\n').map((l) => JSON.parse(l).id).sort() : [];
    };
    const empty = sb.info.examples.emptyUser;
    const first = await as(empty)(['playlist', 'apply', backup]);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toMatch(new RegExp(`${n} playlists created`));
    const made = await ids(empty);
    expect(made).toHaveLength(n);
    // the dry run plans what the run would do: replace those, create nothing
    const dry = await as(empty)(['playlist', 'apply', backup, '--dry-run', '-o', 'json']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    const plans = JSON.parse(dry.stdout);
    expect(plans.map((p: any) => p.action)).toEqual(Array(n).fill('no-change'));
    for (const p of plans) expect(p.lines[0]).toMatch(/^would replace playlist [0-9a-f]{24}, which an earlier run of these edits created for [0-9a-f]{24}$/);
    expect(plans.map((p: any) => p.lines[0].split(' ')[3].replace(',', '')).sort()).toEqual(made);
    // as another user it plans the creates
    const otherDry = await as('10005')(['playlist', 'apply', backup, '--dry-run', '-o', 'json']);
    expect(JSON.parse(otherDry.stdout).map((p: any) => p.action)).toEqual(Array(n).fill('create'));
    for (const args of [['playlist', 'apply', backup, '--verify'], ['playlist', 'apply', backup]]) {
      const again = await as(empty)(args);
      expect(again.exitCode, again.stderr).toBe(0);
      expect(again.stderr).toMatch(new RegExp(`${n} applied, 0 failed of ${n} edits in [^\n]*, ${n} replaced where an earlier run created them\n`));
      expect(again.stderr).not.toMatch(/playlists? created/);
      expect(await ids(empty)).toEqual(made);
    }
    // another user applying the same file (the same journal, another target): their own playlists, nothing of the first user's
    const other = '10005';
    const before = await ids(other);
    const theirs = await as(other)(['playlist', 'apply', backup]);
    expect(theirs.exitCode, theirs.stderr).toBe(0);
    expect(theirs.stderr).toMatch(new RegExp(`${n} playlists created`));
    expect(theirs.stderr).not.toMatch(/replaced where an earlier run/);
    const after = await ids(other);
    expect(after).toHaveLength(before.length + n);
    for (const id of made) expect(after).not.toContain(id);
    expect(await ids(empty)).toEqual(made);
    // and back to the first user: the journal kept its copies too
    const back = await as(empty)(['playlist', 'apply', backup]);
    expect(back.exitCode, back.stderr).toBe(0);
    expect(back.stderr).toMatch(new RegExp(`${n} replaced where an earlier run created them`));
    expect(await ids(empty)).toEqual(made);
    expect(await ids(other)).toEqual(after);
  }, 60_000);

  it('Ctrl-C in export exits 130 and says the backup is cut short (whole lines on stdout, their number said)', async () => {
    // each answer 1.5 s late: the playlists (three, four at a time) still coming at the stop, at 2.5 s
    const sb = await sandbox({ faults: 'latency=1500ms' });
    const child = execa(cliNode, [binPath, 'playlist', 'export'], {
      env: mcatEnv({ sandboxDir: sb.dataDir }) as Record<string, string>,
      extendEnv: true,
      reject: false,
      stripFinalNewline: false,
      timeout: 60_000,
    });
    await new Promise((res) => setTimeout(res, 2500));
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode, String(r.stderr)).toBe(130);
    const m = /^mcat: interrupted: playlist export was stopped: the output is incomplete: it stops after (\d+) playlists?$/m.exec(String(r.stderr));
    expect(m, String(r.stderr)).not.toBeNull();
    const out = String(r.stdout);
    const lines = out.split('\n').filter(Boolean);
    expect(lines.length).toBe(Number(m![1]));
    if (lines.length) expect(out.endsWith('\n')).toBe(true);
    for (const l of lines) expect(JSON.parse(l).op).toBe('replace');
  }, 60_000);

  it('export writes NDJSON only; other output formats are refused', async () => {
    const sb = await sandbox();
    const run = runner(sb);
    const r = await run(['playlist', 'export', '-o', 'csv']);
    expect(r.exitCode).toBe(2);
    const empty = runner(sb, userEnv(sb, sb.info.examples.emptyUser));
    const e = await empty(['playlist', 'export']);
    expect(e.exitCode).toBe(0);
    expect(e.stdout).toBe('');
  });
});

describe('playlist apply against a service that sends groups bare (api-decisions.md: the client reads both)', () => {
  it('a group-replace whose answer is a bare group is applied, once: --resume has nothing to send', async () => {
    const s = await hostile();
    const gid = 'ca4cda5a7a2888a359ea1de8';
    const pid = 'ad0ed2b4b45b8d81945103f4';
    const path = `/1.2/user/playlists/groups/${gid}`;
    s.on(path, jsonOf(() => ({ id: gid, name: 'G', playlistCount: 1, _links: { self: { href: path } }, playlists: [{ id: pid, name: 'P' }] })));
    const d = tempDir();
    const file = join(d, 'group.ndjson');
    writeFileSync(file, ndjson([{ op: 'group-replace', groupId: gid, name: 'G', playlistIds: [pid] }]));
    const home = tempHome();
    const run = (args: string[]) => mcat(args, { env: hostileEnv(s, { MCAT_USER_ID: '10001' }), home, timeout: 60_000 });
    const r = await run(['playlist', 'apply', file, '--report', join(d, 'report.ndjson')]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/1 applied, 0 failed of 1 edit/);
    expect(r.stderr).not.toMatch(/unreadable/);
    expect(readFileSync(join(d, 'report.ndjson'), 'utf8')).toBe('');
    const again = await run(['playlist', 'apply', file, '--resume']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(s.requests.filter((q) => q.path === path).map((q) => q.method)).toEqual(['PUT']);
  }, 60_000);
});
