// End to end: the apply journal of `mcat playlist apply` as cron jobs and crashes meet it: runs
// that overlap on one journal, the same file or stdin applied every night, a journal path that
// cannot be used, and a real run's journal cut at every record boundary (what a crash of the
// machine can leave) and resumed.
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import Database from 'better-sqlite3';
import { execa } from 'execa';
import { sandboxPerTest, type startTestSandbox } from '../helpers/sandbox';
import { binPath, mcatEnv, tempHome } from '../helpers/mcat';
import { mcatIn as mcat } from '../helpers/mcat-in';

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;

 

const sandbox = sandboxPerTest();
const tempDir = () => mkdtempSync(join(tmpdir(), 'mcat-bulk-journal-'));
const ndjson = (edits: unknown[]) => edits.map((e) => JSON.stringify(e)).join('\n') + '\n';
const hexId = (n: number) => n.toString(16).padStart(24, '0');

/** One user's runs: one HOME (so one state folder), cwd a folder of its own. */
function runner(sb: Sandbox, home = tempHome(), cwd = tempDir()) {
  const run = (args: string[], opts: Parameters<typeof mcat>[1] = {}) => mcat(args, { sandboxDir: sb.dataDir, home, cwd, timeout: 120_000, ...opts });
  return Object.assign(run, { home, cwd });
}

async function allPlaylists(run: ReturnType<typeof runner>): Promise<any[]> {
  const r = await run(['playlist', 'export']);
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout.trim() ? r.stdout.trim().split('\n').map((l) => JSON.parse(l)) : [];
}

/** stderr without the sandbox's label (said by every command run against the built-in sandbox) */
const errors = (stderr: string) => stderr.replace(/^mcat: using the built-in sandbox .*\n/, '');

const journalsIn = (home: string) => {
  const d = join(home, '.local/state/mcat/journals');
  return existsSync(d) ? readdirSync(d).filter((n) => n.endsWith('.journal')) : [];
};

describe('playlist apply: one run per journal', () => {
  it('two --resume runs started together on one journal: one is refused naming the other, the playlists are exactly the file\'s', async () => {
    // latency keeps the first run going while the second starts
    const sb = await sandbox({ faults: 'latency=20ms' });
    const run = runner(sb);
    const edits = Array.from({ length: 60 }, (_, i) => ({ op: 'create', name: `both-${i}` }));
    const d = tempDir();
    const file = join(d, 'both.ndjson');
    writeFileSync(file, ndjson(edits));
    const start = () =>
      execa(process.execPath, [binPath, 'playlist', 'apply', file, '--resume', '--concurrency', '2'], {
        env: mcatEnv({ sandboxDir: sb.dataDir, home: run.home }) as Record<string, string>,
        extendEnv: true,
        cwd: run.cwd,
        reject: false,
        stdin: 'ignore',
        stripFinalNewline: false,
      });
    const [a, b] = [start(), start()];
    const [ra, rb] = await Promise.all([a, b]);
    const results = [
      { pid: a.pid, r: ra },
      { pid: b.pid, r: rb },
    ].sort((x, y) => Number(x.r.exitCode) - Number(y.r.exitCode));
    const [winner, loser] = results;
    expect(winner.r.exitCode, String(winner.r.stderr)).toBe(0);
    expect(loser.r.exitCode, String(loser.r.stderr)).toBe(2);
    const journal = join(run.home, '.local/state/mcat/journals', journalsIn(run.home)[0]);
    expect(errors(String(loser.r.stderr))).toBe(`mcat: the journal ${journal} is in use by another mcat run (pid ${winner.pid})\nhint: wait for it to finish (a run that was killed leaves a lock the next run takes over by itself)\n`);
    expect(loser.r.stdout).toBe('');
    const all = await allPlaylists(run);
    for (let i = 0; i < 60; i++) expect(all.filter((p) => p.name === `both-${i}`), `both-${i}`).toHaveLength(1);
    expect(all).toHaveLength(3 + 60);
    // one run's records: nothing written over
    const lines = readFileSync(journal, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.type === 'session')).toHaveLength(1);
    expect(lines.filter((l) => l.type === 'done')).toHaveLength(60);
  }, 60_000);
});

describe('playlist apply: the same input every night', () => {
  it('the same file twice and the same stdin twice: each run applies, nothing lands in the current folder', async () => {
    const sb = await sandbox();
    const run = runner(sb);
    const [p1, p2] = sb.info.examples.playlistIds;
    const edits = [
      { op: 'details', playlistId: p1, description: 'nightly' },
      { op: 'replace', playlistId: p2, name: 'Nightly', tracks: [{ trackId: sb.info.examples.trackIds[0] }] },
    ];
    const d = tempDir();
    const file = join(d, 'nightly.ndjson');
    writeFileSync(file, ndjson(edits));
    for (let night = 1; night <= 2; night++) {
      const r = await run(['playlist', 'apply', file]);
      expect(r.exitCode, `night ${night}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toMatch(/2 applied, 0 failed of 2 edits/);
    }
    for (let night = 1; night <= 2; night++) {
      const r = await run(['playlist', 'apply', '-'], { input: ndjson(edits) });
      expect(r.exitCode, `stdin night ${night}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toMatch(/2 applied, 0 failed of 2 edits/);
    }
    expect(readdirSync(run.cwd)).toEqual([]);
    expect(readdirSync(d)).toEqual(['nightly.ndjson']);
    // two journals, one per input, under $XDG_STATE_HOME/mcat/journals
    expect(journalsIn(run.home).sort()).toEqual([expect.stringMatching(/^nightly\.ndjson-[0-9a-f]{16}\.journal$/), expect.stringMatching(/^stdin-[0-9a-f]{16}\.journal$/)]);

    // --resume after a finished run: nothing to do, exit 0, the journal untouched
    const journal = join(run.home, '.local/state/mcat/journals', journalsIn(run.home).find((n) => n.startsWith('nightly'))!);
    const bytes = readFileSync(journal);
    const r = await run(['playlist', 'apply', file, '--resume']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`mcat: the journal ${journal} shows all 2 edits applied: nothing to do`);
    expect(readFileSync(journal)).toEqual(bytes);
  }, 60_000);

  it('--resume of a file changed since its run failed is refused (exit 2, nothing sent): a new run would make its creates again', async () => {
    const sb = await sandbox();
    const run = runner(sb);
    const missing = hexId(0xbad1);
    const creates = Array.from({ length: 3 }, (_, i) => ({ op: 'create', name: `changed-${i}` }));
    const d = tempDir();
    const file = join(d, 'changed.ndjson');
    // the last edit fails (no such playlist): the run is unfinished, its creates made
    writeFileSync(file, ndjson([...creates, { op: 'details', playlistId: missing, description: 'x' }]));
    const first = await run(['playlist', 'apply', file]);
    expect(first.exitCode, first.stderr).toBe(3);
    const old = journalsIn(run.home);
    expect(old).toHaveLength(1);
    const before = await allPlaylists(run);
    expect(before).toHaveLength(3 + 3);
    // the failing line is fixed, and the run resumed
    writeFileSync(file, ndjson([...creates, { op: 'details', playlistId: sb.info.examples.playlistIds[0], description: 'x' }]));
    const r = await run(['playlist', 'apply', file, '--resume']);
    expect(r.exitCode, r.stderr).toBe(2);
    const journal = join(run.home, '.local/state/mcat/journals', old[0]);
    expect(errors(r.stderr)).toBe(
      `mcat: ${file} has changed since its run that did not finish (${journal}): resuming would apply every edit again (its creates twice); refusing to resume\n` +
        'hint: put back the file as it was and run --resume again, or remove that journal to abandon its run\n',
    );
    expect(await allPlaylists(run)).toEqual(before);
    expect(journalsIn(run.home)).toEqual(old);
    // without --resume it would be a new run of every edit: that run made 3 playlists, which it would make again
    const plain = await run(['playlist', 'apply', file]);
    expect(plain.exitCode, plain.stderr).toBe(2);
    expect(errors(plain.stderr)).toBe(
      `mcat: ${file} has changed since its run that did not finish (${journal}), which made 3 playlists (or may have): a new run would make them again; refusing to run\n` +
        'hint: put back the file as it was and run again with --resume, or remove that journal to abandon its run (what it made stays)\n',
    );
    expect(await allPlaylists(run)).toEqual(before);
    expect(journalsIn(run.home)).toEqual(old);
    // put back as it was: --resume finishes that run (the fixed edit is the user's to add after)
    writeFileSync(file, ndjson([...creates, { op: 'details', playlistId: missing, description: 'x' }]));
    const resumed = await run(['playlist', 'apply', file, '--resume']);
    expect(resumed.exitCode, resumed.stderr).toBe(3);
    expect(resumed.stderr).toMatch(/0 applied, 3 already done, 1 failed of 4 edits/);
    // the journal removed, the run abandoned: a new run makes what the file says, as asked
    rmSync(journal);
    writeFileSync(file, ndjson([...creates, { op: 'details', playlistId: sb.info.examples.playlistIds[0], description: 'x' }]));
    const fresh = await run(['playlist', 'apply', file]);
    expect(fresh.exitCode, fresh.stderr).toBe(0);
    expect(await allPlaylists(run)).toHaveLength(before.length + 3);
  }, 60_000);

  it('a plain run of a file changed since a run that made no playlist (replaces, details: idempotent) did not finish is a new run (a nightly file)', async () => {
    const sb = await sandbox();
    const run = runner(sb);
    const [p1, p2] = sb.info.examples.playlistIds;
    const d = tempDir();
    const file = join(d, 'nightly.ndjson');
    writeFileSync(file, ndjson([{ op: 'details', playlistId: p1, description: 'one' }, { op: 'details', playlistId: hexId(0xbad2), description: 'x' }]));
    expect((await run(['playlist', 'apply', file])).exitCode).toBe(3);
    writeFileSync(file, ndjson([{ op: 'details', playlistId: p1, description: 'two' }, { op: 'details', playlistId: p2, description: 'two' }]));
    const r = await run(['playlist', 'apply', file]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/2 applied, 0 failed of 2 edits/);
  }, 60_000);

  it('finished journals last written over 30 days ago are removed by the next run; failed ones and those of --journal runs are kept', async () => {
    const sb = await sandbox();
    const run = runner(sb);
    const [p1] = sb.info.examples.playlistIds;
    const d = tempDir();
    const dir = join(run.home, '.local/state/mcat/journals');
    const ago = (days: number) => new Date(Date.now() - days * 24 * 60 * 60 * 1000);
    const applyNight = async (night: number, extra: unknown[] = [], args: string[] = []) => {
      const file = join(d, 'nightly.ndjson');
      writeFileSync(file, ndjson([{ op: 'details', playlistId: p1, description: `night ${night}` }, ...extra]));
      return run(['playlist', 'apply', file, ...args]);
    };
    // night 1 applies everything; night 2 has an edit that fails (kept: it can be resumed)
    expect((await applyNight(1)).exitCode).toBe(0);
    const [finished] = journalsIn(run.home);
    expect((await applyNight(2, [{ op: 'details', playlistId: hexId(0xbad), description: 'x' }])).exitCode).toBe(3);
    const failed = journalsIn(run.home).find((n) => n !== finished)!;
    for (const n of [finished, failed]) utimesSync(join(dir, n), ago(31), ago(31));
    // a run with its own --journal leaves mcat's folder alone
    expect((await applyNight(3, [], ['--journal', join(d, 'own.journal')])).exitCode).toBe(0);
    expect(journalsIn(run.home).sort()).toEqual([finished, failed].sort());
    // the next run in the default folder removes the old finished journal and its lock folder
    expect((await applyNight(4)).exitCode).toBe(0);
    const left = journalsIn(run.home);
    expect(left).not.toContain(finished);
    expect(left).toContain(failed);
    expect(left).toHaveLength(2);
    expect(existsSync(join(dir, `${finished}.lock`))).toBe(false);
    expect(existsSync(join(d, 'own.journal'))).toBe(true);
  }, 60_000);
});

describe('playlist apply: a journal path that cannot be used', () => {
  it('a dangling symlink, a path under a file, a state folder under a file: one line naming the path, exit 2, nothing sent', async () => {
    const sb = await sandbox();
    const run = runner(sb);
    const before = await allPlaylists(run);
    const d = tempDir();
    const file = join(d, 'e.ndjson');
    writeFileSync(file, ndjson([{ op: 'create', name: 'never' }, { op: 'details', playlistId: sb.info.examples.playlistIds[0], name: 'never' }]));
    const dangling = join(d, 'dangling.journal');
    symlinkSync(join(d, 'nowhere'), dangling);
    const plain = join(d, 'plain');
    writeFileSync(plain, 'x');
    const cases: [string[], Record<string, string>, string][] = [
      [['--journal', dangling], {}, `mcat: the journal ${dangling} is a symbolic link; refusing to write through it\nhint: remove it, or give another --journal\n`],
      [
        ['--journal', join(plain, 'j')],
        {},
        `mcat: cannot make the folder ${plain} for the journal ${join(plain, 'j')}: something else is already there (EEXIST)\nhint: give --journal a path in a folder you can write\n`,
      ],
      [
        ['--journal', join(plain, 'sub', 'j')],
        {},
        `mcat: cannot make the folder ${join(plain, 'sub')} for the journal ${join(plain, 'sub', 'j')}: a part of the path is not a folder (ENOTDIR)\nhint: give --journal a path in a folder you can write\n`,
      ],
      [[], { XDG_STATE_HOME: join(plain, 'state') }, `mcat: cannot make the folder ${join(plain, 'state', 'mcat', 'journals')} for the journal `],
    ];
    for (const [args, env, message] of cases) {
      for (const resume of [[], ['--resume']]) {
        const r = await run(['playlist', 'apply', file, ...args, ...resume], { env });
        expect(r.exitCode, r.stderr).toBe(2);
        expect(r.stdout).toBe('');
        expect(errors(r.stderr).startsWith(message), r.stderr).toBe(true);
        expect(errors(r.stderr).trim().split('\n').length).toBeLessThanOrEqual(2);
        expect(r.stderr).not.toMatch(/unexpected error/);
      }
    }
    expect(existsSync(join(d, 'nowhere'))).toBe(false);
    // a refused path leaves no lock folder beside it
    expect(existsSync(`${dangling}.lock`)).toBe(false);
    expect(await allPlaylists(run)).toEqual(before);
  }, 60_000);

  it('a file that is not a journal (the input itself, notes, a report) is never replaced: exit 2, nothing sent; an empty one or a header cut short is', async () => {
    const sb = await sandbox();
    const run = runner(sb);
    const before = await allPlaylists(run);
    const d = tempDir();
    const file = join(d, 'e.ndjson');
    const text = ndjson([{ op: 'create', name: 'never' }, { op: 'details', playlistId: sb.info.examples.playlistIds[0], name: 'never' }]);
    writeFileSync(file, text);
    const notes = join(d, 'notes.txt');
    writeFileSync(notes, 'one line without an end');
    const report = join(d, 'report.ndjson');
    writeFileSync(report, '{"edit":{"op":"create","name":"x"},"line":1,"outcome":"failed"}\n');
    for (const journal of [file, notes, report]) {
      const kept = readFileSync(journal, 'utf8');
      for (const resume of [[], ['--resume']]) {
        const r = await run(['playlist', 'apply', file, '--journal', journal, ...resume]);
        expect(r.exitCode, r.stderr).toBe(2);
        expect(errors(r.stderr)).toBe(`mcat: ${journal} is not an mcat journal; refusing to replace it\nhint: give --journal a file of its own (a new name)\n`);
        expect(readFileSync(journal, 'utf8')).toBe(kept);
        // nothing left beside it: the lock is not taken for a file that is not a journal
        expect(existsSync(`${journal}.lock`)).toBe(false);
      }
    }
    expect(await allPlaylists(run)).toEqual(before);
    // what a run killed before its header was whole leaves: replaced by the new run
    for (const left of ['', '{"type":"hea', '{"type":"header","version":1,"ru']) {
      const journal = join(d, `cut-${left.length}.journal`);
      writeFileSync(journal, left);
      const r = await run(['playlist', 'apply', file, '--journal', journal, '--dry-run']);
      expect(r.exitCode, r.stderr).toBe(0);
      const real = await run(['playlist', 'apply', file, '--journal', journal]);
      expect(real.exitCode, real.stderr).toBe(0);
      expect(JSON.parse(readFileSync(journal, 'utf8').split('\n')[0])).toMatchObject({ type: 'header' });
    }
  }, 60_000);
});

describe('playlist apply: a crash of the machine at any record', () => {
  it('a real run\'s journal cut at every record boundary and resumed: no playlist twice, no edit lost', async () => {
    const sb = await sandbox();
    const run = runner(sb);
    const t = sb.info.examples.trackIds;
    const [p1, p2, p3] = sb.info.examples.playlistIds;
    const gid = hexId(0xc0ffee);
    const edits = [
      { op: 'create', name: 'cut-a', tracks: [{ trackId: t[0] }] },
      { op: 'replace', playlistId: p1, name: 'cut replaced', tracks: [{ trackId: t[1] }, { trackId: t[2] }] },
      { op: 'create', name: 'cut-b', annotations: { keep: 'me' } },
      { op: 'details', playlistId: p2, description: 'cut details' },
      { op: 'replace', playlistId: hexId(0xdead01), ifMissing: 'create', name: 'cut-c', tracks: [{ trackId: t[3] }] },
      { op: 'group-replace', groupId: gid, name: 'Cut group', playlistIds: [p3] },
    ];
    const d = tempDir();
    const file = join(d, 'cut.ndjson');
    writeFileSync(file, ndjson(edits));
    const journal = join(d, 'cut.journal');
    const r = await run(['playlist', 'apply', file, '--journal', journal, '--concurrency', '3']);
    expect(r.exitCode, r.stderr).toBe(0);
    const names = ['cut-a', 'cut-b', 'cut-c'];

    // the server after the complete run
    const db = new Database(join(sb.dataDir, 'sandbox.db'));
    try {
      const playlists = db.prepare('SELECT * FROM playlists').all() as any[];
      const groups = db.prepare('SELECT * FROM groups').all() as any[];
      const expected = comparable(playlists);
      const text = readFileSync(journal, 'utf8');
      const lines = text.split('\n').slice(0, -1);
      const records = lines.map((l) => JSON.parse(l));
      const createdId = new Map<string, string>(records.filter((x) => x.type === 'created').map((x) => [x.key, x.playlistId]));
      expect(createdId.size).toBe(3);

      for (let cut = 0; cut <= lines.length; cut++) {
        const kept = records.slice(0, cut);
        // The server state that goes with this cut, the worst for duplicates that the protocol
        // allows: every change done (as after the complete run) except that a create's marker is
        // removed only once its "created" record is on disk, and a create is sent only once its
        // "started" record is: a cut with "started" but no "created" has the playlist with its
        // marker still on; a cut without "started" has no playlist.
        db.transaction(() => {
          db.prepare('DELETE FROM playlists').run();
          db.prepare('DELETE FROM groups').run();
          const ins = db.prepare(`INSERT INTO playlists (${Object.keys(playlists[0]).join(', ')}) VALUES (${Object.keys(playlists[0]).map((k) => '@' + k).join(', ')})`);
          for (const p of playlists) ins.run(p);
          const insg = db.prepare(`INSERT INTO groups (${Object.keys(groups[0]).join(', ')}) VALUES (${Object.keys(groups[0]).map((k) => '@' + k).join(', ')})`);
          for (const g of groups) insg.run(g);
          for (const [key, id] of createdId) {
            if (kept.some((x) => x.key === key && (x.type === 'created' || x.type === 'done'))) continue;
            const started = kept.find((x) => x.key === key && x.type === 'started' && x.marker);
            if (!started) {
              db.prepare('DELETE FROM playlists WHERE id = ?').run(id);
              continue;
            }
            const row = playlists.find((p) => p.id === id);
            db.prepare('UPDATE playlists SET annotations = ? WHERE id = ?').run(JSON.stringify({ ...JSON.parse(row.annotations), 'mcat:apply': started.marker }), id);
          }
        })();
        const cutFile = join(d, `cut-${cut}.journal`);
        writeFileSync(cutFile, lines.slice(0, cut).map((l) => l + '\n').join(''));
        const res = await run(['playlist', 'apply', file, '--journal', cutFile, '--resume', '--concurrency', '3']);
        expect(res.exitCode, `cut at ${cut}: ${res.stderr}`).toBe(0);
        const now = db.prepare('SELECT * FROM playlists').all() as any[];
        for (const n of names) expect(now.filter((p) => p.name === n), `cut at ${cut}: ${n}`).toHaveLength(1);
        expect(now.filter((p) => JSON.parse(p.annotations)['mcat:apply'] !== undefined), `cut at ${cut}`).toEqual([]);
        expect(comparable(now), `cut at ${cut}`).toEqual(expected);
        expect((db.prepare('SELECT name, playlist_ids FROM groups WHERE id = ?').get(gid) as any)?.playlist_ids, `cut at ${cut}`).toBe(JSON.stringify([p3]));
      }
    } finally {
      db.close();
    }
  }, 120_000);
});

/** What the edits set, without what a repeated request renews (a new playlist's id, a track entry's id and date). */
function comparable(rows: any[]): string[] {
  const seeded = /^cut-/;
  return rows
    .map((p) => JSON.stringify([seeded.test(p.name) ? '(new)' : p.id, p.owner, p.name, p.status, p.visibility, p.description, p.annotations, JSON.parse(p.tracks).map((x: any) => x.trackId)]))
    .sort();
}
