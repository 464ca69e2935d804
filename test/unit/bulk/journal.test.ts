import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultJournalPath, journalDir } from '../../../src/bulk/files';
import { Journal, JournalWriteError, readJournal, type JournalIo } from '../../../src/bulk/journal';
import { InputError } from '../../../src/client/errors';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcat-journal-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

describe('journal', () => {
  it('writes a header and records, and reads back the state', async () => {
    const file = path.join(dir, 'j');
    const { journal, state } = Journal.open(file, { inputHash: 'h', input: 'in.ndjson', total: 3, resume: false, runId: 'r1' });
    expect(state.done.size).toBe(0);
    await journal.appendDurable({ type: 'started', key: '1:a', line: 1, op: 'create', marker: 'r1:1:a', at: 't' });
    await journal.appendDurable({ type: 'created', key: '1:a', playlistId: 'p', at: 't' });
    journal.append({ type: 'done', key: '1:a', line: 1, op: 'create', at: 't', playlistId: 'p', created: true });
    journal.append({ type: 'failed', key: '2:b', line: 2, op: 'details', at: 't', error: 'ApiError', message: 'm', code: 2001 });
    await journal.close();
    const c = readJournal(file);
    expect(c.header).toMatchObject({ runId: 'r1', inputHash: 'h', input: 'in.ndjson', total: 3, version: 1 });
    expect(c.tornTail).toBe(false);
    const again = Journal.open(file, { inputHash: 'h', total: 3, resume: true });
    expect(again.resumed).toBe(true);
    expect(again.complete).toBe(false);
    expect(again.state.runId).toBe('r1');
    expect([...again.state.done.keys()]).toEqual(['1:a']);
    expect([...again.state.failed.keys()]).toEqual(['2:b']);
    expect(again.state.markers.get('1:a')).toBe('r1:1:a');
    expect(again.state.created.get('1:a')).toBe('p');
    await again.journal.close();
  });

  it('drops a torn last line and keeps appending on a fresh line', async () => {
    const file = path.join(dir, 'j');
    const { journal } = Journal.open(file, { inputHash: 'h', total: 1, resume: false });
    journal.append({ type: 'done', key: '1:a', line: 1, op: 'details', at: 't' });
    await journal.close();
    fs.appendFileSync(file, '{"type":"done","key":"2:');
    const o = Journal.open(file, { inputHash: 'h', total: 1, resume: true });
    expect(o.notes.join()).toMatch(/incomplete last record/);
    o.journal.append({ type: 'done', key: '2:b', line: 2, op: 'details', at: 't' });
    await o.journal.close();
    const c = readJournal(file);
    expect(c.tornTail).toBe(false);
    expect(c.corruptLines).toEqual([]);
    expect(c.records.filter((r) => r.type === 'done').map((r) => (r as { key: string }).key)).toEqual(['1:a', '2:b']);
  });

  it('names the unreadable lines it ignores, in words that agree with their count', async () => {
    const file = path.join(dir, 'j');
    const { journal } = Journal.open(file, { inputHash: 'h', total: 3, resume: false });
    journal.append({ type: 'done', key: '1:a', line: 1, op: 'details', at: 't' });
    await journal.close();
    const done = (k: string) => JSON.stringify({ type: 'done', key: k, line: 2, op: 'details', at: 't' }) + '\n';
    // a bad line with a good one after it (a bad last line is a torn tail, dropped with its own note)
    fs.appendFileSync(file, 'not json\n' + done('2:b'));
    const one = Journal.open(file, { inputHash: 'h', total: 3, resume: true });
    await one.journal.close();
    expect(one.notes.join('\n')).toMatch(/: unreadable line \d+ ignored/);
    fs.appendFileSync(file, 'nor this\n' + done('3:c'));
    const two = Journal.open(file, { inputHash: 'h', total: 3, resume: true });
    await two.journal.close();
    expect(two.notes.join('\n')).toMatch(/: unreadable lines \d+, \d+ ignored/);
  });

  it('appends: a record written by another handle meanwhile is never written over', async () => {
    const file = path.join(dir, 'j');
    const { journal } = Journal.open(file, { inputHash: 'h', total: 2, resume: false });
    fs.appendFileSync(file, JSON.stringify({ type: 'done', key: '1:a', line: 1, op: 'details', at: 't' }) + '\n');
    journal.append({ type: 'done', key: '2:b', line: 2, op: 'details', at: 't' });
    await journal.close();
    const c = readJournal(file);
    expect(c.corruptLines).toEqual([]);
    expect(c.records.filter((r) => r.type === 'done').map((r) => (r as { key: string }).key)).toEqual(['1:a', '2:b']);
  });

  it('refuses an unfinished journal without resume (whatever its edits), and to resume other edits', async () => {
    const file = path.join(dir, 'j');
    const o = Journal.open(file, { inputHash: 'h', total: 1, resume: false });
    await o.journal.appendDurable({ type: 'started', key: '1:a', line: 1, op: 'create', marker: 'm', at: 't' });
    await o.journal.close();
    expect(() => Journal.open(file, { inputHash: 'h', total: 1, resume: false })).toThrow(/holds an unfinished run of these edits \(0 of 1 done\)/);
    expect(() => Journal.open(file, { inputHash: 'other', total: 1, resume: false })).toThrow(/holds an unfinished run of other edits/);
    expect(() => Journal.open(file, { inputHash: 'other', total: 1, resume: true })).toThrow(/different edits/);
    // a refusal leaves the lock free
    await Journal.open(file, { inputHash: 'h', total: 1, resume: true }).journal.close();
  });

  it('a run that stopped before sending anything (no edit started) does not block a new one', async () => {
    const file = path.join(dir, 'j');
    await Journal.open(file, { inputHash: 'h', total: 1, resume: false, runId: 'r1' }).journal.close();
    const next = Journal.open(file, { inputHash: 'h', total: 1, resume: false, runId: 'r2' });
    expect(next.resumed).toBe(false);
    await next.journal.close();
    expect(readJournal(file).header!.runId).toBe('r2');
  });

  it('a complete journal: --resume has nothing to do and writes nothing; a new run replaces it', async () => {
    const file = path.join(dir, 'j');
    const first = Journal.open(file, { inputHash: 'h', total: 1, resume: false, runId: 'r1' });
    first.journal.append({ type: 'done', key: '1:a', line: 1, op: 'details', at: 't' });
    first.journal.append({ type: 'end', applied: 1, failed: 0, skipped: 0, interrupted: false, at: 't' });
    await first.journal.close();
    const bytes = fs.readFileSync(file);
    const r = Journal.open(file, { inputHash: 'h', total: 1, resume: true });
    expect(r).toMatchObject({ complete: true, resumed: true });
    await r.journal.close();
    expect(fs.readFileSync(file)).toEqual(bytes);
    const next = Journal.open(file, { inputHash: 'h', total: 1, resume: false, runId: 'r2' });
    expect(next).toMatchObject({ complete: false, resumed: false });
    await next.journal.close();
    expect(readJournal(file).header!.runId).toBe('r2');
    expect(readJournal(file).records.map((x) => x.type)).toEqual(['session']);
  });

  it('an interrupted or failed last session is not complete', async () => {
    for (const end of [
      { applied: 0, failed: 0, interrupted: true },
      { applied: 0, failed: 1, interrupted: false },
    ]) {
      for (const op of ['create', 'details'] as const) {
        const file = path.join(dir, `j${end.failed}-${op}`);
        const o = Journal.open(file, { inputHash: 'h', total: 1, resume: false });
        o.journal.append({ type: 'started', key: '1:a', line: 1, op, ...(op === 'create' ? { marker: 'm' } : {}), at: 't' });
        o.journal.append({ type: 'end', skipped: 0, at: 't', ...end });
        await o.journal.close();
        if (op === 'create') {
          // a create sent, its answer not recorded: a new run could make it twice
          expect(() => Journal.open(file, { inputHash: 'h', total: 1, resume: false })).toThrow(/unfinished run/);
          continue;
        }
        // no playlist made: the same edits run again whole, said in a note
        const again = Journal.open(file, { inputHash: 'h', total: 1, resume: false });
        expect(again.resumed).toBe(false);
        expect(again.notes.join()).toMatch(/did not finish \(0 of 1 done.*\) and made no playlists: this run applies every edit again/);
        await again.journal.close();
        // other edits are still refused
        const o2 = Journal.open(file, { inputHash: 'h', total: 1, resume: false });
        o2.journal.append({ type: 'started', key: '1:a', line: 1, op, at: 't' });
        await o2.journal.close();
        expect(() => Journal.open(file, { inputHash: 'other', total: 1, resume: false })).toThrow(/unfinished run of other edits/);
      }
    }
  });

  it('starts afresh when resuming without a journal, or with one killed before its header', async () => {
    const file = path.join(dir, 'j');
    const a = Journal.open(file, { inputHash: 'h', total: 1, resume: true });
    expect(a.resumed).toBe(false);
    expect(a.notes.join()).toMatch(/starting a new run/);
    await a.journal.close();
    fs.writeFileSync(file, '{"type":"head');
    const b = Journal.open(file, { inputHash: 'h', total: 1, resume: true });
    expect(b.resumed).toBe(false);
    await b.journal.close();
  });

  it('creates the journal 0600 (and missing folders 0700), whatever the umask', async () => {
    const old = process.umask(0o000);
    try {
      const file = path.join(dir, 'a', 'b', 'j');
      await Journal.open(file, { inputHash: 'h', total: 1, resume: false }).journal.close();
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.join(dir, 'a')).mode & 0o777).toBe(0o700);
      expect(fs.statSync(path.join(dir, 'a', 'b')).mode & 0o777).toBe(0o700);
      expect(fs.statSync(`${file}.lock`).mode & 0o777).toBe(0o700);
      for (const n of fs.readdirSync(`${file}.lock`)) expect(fs.statSync(path.join(`${file}.lock`, n)).mode & 0o777).toBe(0o600);
      // an older journal with a looser mode is tightened when resumed
      fs.chmodSync(file, 0o644);
      await Journal.open(file, { inputHash: 'h', total: 1, resume: true }).journal.close();
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      process.umask(old);
    }
  });

  it('never writes through a symlink: a dangling one or one to a journal is refused in one line', () => {
    const dangling = path.join(dir, 'dangling');
    fs.symlinkSync(path.join(dir, 'nowhere'), dangling);
    for (const resume of [false, true]) {
      expect(() => Journal.open(dangling, { inputHash: 'h', total: 1, resume })).toThrow(`the journal ${dangling} is a symbolic link; refusing to write through it`);
    }
    expect(fs.existsSync(path.join(dir, 'nowhere'))).toBe(false);
    const real = path.join(dir, 'real');
    fs.writeFileSync(real, '');
    const link = path.join(dir, 'link');
    fs.symlinkSync(real, link);
    expect(() => Journal.open(link, { inputHash: 'h', total: 1, resume: true })).toThrow(/is a symbolic link/);
    // a symlink where the lock goes is refused too
    const j2 = path.join(dir, 'j2');
    fs.symlinkSync(dir, `${j2}.lock`);
    expect(() => Journal.open(j2, { inputHash: 'h', total: 1, resume: false })).toThrow(`the lock ${j2}.lock is a symbolic link; refusing to use it`);
  });

  it('a path that cannot hold a journal is refused in one line naming it (ENOTDIR, a folder), even as root', () => {
    const plain = path.join(dir, 'plain');
    fs.writeFileSync(plain, 'x');
    const under = path.join(plain, 'sub', 'j');
    let err: unknown;
    try {
      Journal.open(under, { inputHash: 'h', total: 1, resume: false });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toBe(`cannot make the folder ${path.join(plain, 'sub')} for the journal ${under}: a part of the path is not a folder (ENOTDIR)`);
    expect((err as InputError).hint).toMatch(/--journal/);
    const folder = path.join(dir, 'folder');
    fs.mkdirSync(folder);
    expect(() => Journal.open(folder, { inputHash: 'h', total: 1, resume: false })).toThrow(`the journal ${folder} is not a regular file`);
  });

  it('a disk full while the header is written: a usage error naming the path, nothing left behind, the lock free', async () => {
    const file = path.join(dir, 'j');
    const io: JournalIo = { ...fs, writeSync: () => { throw enospc(); } };
    let err: unknown;
    try {
      Journal.open(file, { inputHash: 'h', total: 1, resume: false, io });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toBe(`cannot write the journal ${file}: no space left on the device (ENOSPC); nothing was sent`);
    expect(fs.existsSync(file)).toBe(false);
    await Journal.open(file, { inputHash: 'h', total: 1, resume: false }).journal.close();
  });

  it('appendDurable resolves once an fdatasync covering the record has returned; records made durable together share one', async () => {
    const file = path.join(dir, 'j');
    let syncs = 0;
    const pending: (() => void)[] = [];
    const io: JournalIo = {
      ...fs,
      fdatasync: (fd, cb) => {
        syncs++;
        // held until the test lets it go: the record is not on disk before then
        pending.push(() => fs.fdatasync(fd, cb));
      },
    };
    const { journal } = Journal.open(file, { inputHash: 'h', total: 3, resume: false, io });
    const order: string[] = [];
    const a = journal.appendDurable({ type: 'created', key: '1:a', playlistId: 'p1', at: 't' }).then(() => order.push('a'));
    const b = journal.appendDurable({ type: 'created', key: '2:b', playlistId: 'p2', at: 't' }).then(() => order.push('b'));
    await new Promise((r) => setTimeout(r, 5));
    expect(order).toEqual([]);
    expect(syncs).toBe(1);
    pending.shift()!();
    // a covered only a; b waits for the next one, which starts once the first returns
    await a;
    expect(order).toEqual(['a']);
    await new Promise((r) => setTimeout(r, 5));
    expect(syncs).toBe(2);
    const c = journal.appendDurable({ type: 'created', key: '3:c', playlistId: 'p3', at: 't' }).then(() => order.push('c'));
    pending.shift()!();
    await b;
    await new Promise((r) => setTimeout(r, 5));
    pending.shift()?.();
    await c;
    expect(order).toEqual(['a', 'b', 'c']);
    await journal.close();
  });

  it('a failed fdatasync rejects the waiting record and every later write with one JournalWriteError', async () => {
    const file = path.join(dir, 'j');
    const io: JournalIo = { ...fs, fdatasync: (_fd, cb) => setImmediate(() => cb(Object.assign(new Error('EIO'), { code: 'EIO' }))) };
    const { journal } = Journal.open(file, { inputHash: 'h', total: 1, resume: false, io });
    const err = await journal.appendDurable({ type: 'created', key: '1:a', playlistId: 'p', at: 't' }).catch((e) => e);
    expect(err).toBeInstanceOf(JournalWriteError);
    expect(err.message).toBe(`cannot write the journal ${file}: an input/output error of the device (EIO)`);
    expect(() => journal.append({ type: 'done', key: '1:a', line: 1, op: 'create', at: 't' })).toThrow(err);
    await expect(journal.close()).rejects.toBe(err);
    // closed all the same: the lock is free
    await Journal.open(file, { inputHash: 'h', total: 1, resume: true }).journal.close();
  });
});

describe('journal paths', () => {
  const env = (over: Record<string, string | undefined> = {}) => ({ HOME: '/home/u', XDG_STATE_HOME: '/st', ...over });

  it('live under $XDG_STATE_HOME/mcat/journals, else ~/.local/state/mcat/journals (a relative XDG_STATE_HOME is ignored)', () => {
    expect(journalDir(env())).toBe('/st/mcat/journals');
    expect(journalDir(env({ XDG_STATE_HOME: undefined }))).toBe('/home/u/.local/state/mcat/journals');
    expect(journalDir(env({ XDG_STATE_HOME: 'rel/state' }))).toBe('/home/u/.local/state/mcat/journals');
  });

  it('are named after the input path and its edits: the same file and edits give the same journal, never the current folder', () => {
    const f = path.join(dir, 'nightly edits.ndjson');
    fs.writeFileSync(f, '');
    const p = defaultJournalPath(f, 'h1', { env: env(), cwd: '/elsewhere' });
    expect(p).toMatch(/^\/st\/mcat\/journals\/nightly_edits\.ndjson-[0-9a-f]{16}\.journal$/);
    // relative, or through a symlink: the same file
    expect(defaultJournalPath('nightly edits.ndjson', 'h1', { env: env(), cwd: dir })).toBe(p);
    const link = path.join(dir, 'link.ndjson');
    fs.symlinkSync(f, link);
    expect(defaultJournalPath(link, 'h1', { env: env() })).toBe(p);
    // other edits, or another file with the same edits: another journal
    expect(defaultJournalPath(f, 'h2', { env: env() })).not.toBe(p);
    const g = path.join(dir, 'other.ndjson');
    fs.writeFileSync(g, '');
    expect(defaultJournalPath(g, 'h1', { env: env() })).not.toBe(p);
    // stdin: by its edits alone
    const s = defaultJournalPath('-', 'h1', { env: env(), cwd: dir });
    expect(s).toMatch(/^\/st\/mcat\/journals\/stdin-[0-9a-f]{16}\.journal$/);
    expect(defaultJournalPath('-', 'h1', { env: env(), cwd: '/x' })).toBe(s);
    expect(defaultJournalPath('-', 'h2', { env: env() })).not.toBe(s);
  });

  it('the state folders are made 0700, and refused when another user could write them or they are symlinks', async () => {
    const state = path.join(dir, 'state');
    const e = { HOME: dir, XDG_STATE_HOME: state };
    const file = defaultJournalPath('-', 'h', { env: e });
    await Journal.open(file, { inputHash: 'h', total: 1, resume: false, env: e }).journal.close();
    for (const d of [state, path.join(state, 'mcat'), path.join(state, 'mcat', 'journals')]) expect(fs.statSync(d).mode & 0o777).toBe(0o700);
    fs.chmodSync(path.join(state, 'mcat', 'journals'), 0o777);
    expect(() => Journal.open(file, { inputHash: 'h', total: 1, resume: true, env: e })).toThrow(
      `the state folder ${path.join(state, 'mcat', 'journals')} can be written by other users; refusing to keep journals there`,
    );
    const state2 = path.join(dir, 'state2');
    fs.mkdirSync(state2);
    fs.symlinkSync(path.join(state, 'mcat'), path.join(state2, 'mcat'));
    const e2 = { HOME: dir, XDG_STATE_HOME: state2 };
    expect(() => Journal.open(defaultJournalPath('-', 'h', { env: e2 }), { inputHash: 'h', total: 1, resume: false, env: e2 })).toThrow(/state folder .* is a symbolic link/);
  });

  it('a state folder refused is left as it was: nothing is made in it, or through a link in its place', () => {
    // mcat's state folder there already, writable by others, with no journals folder yet
    const state = path.join(dir, 'open-state');
    fs.mkdirSync(path.join(state, 'mcat'), { recursive: true });
    fs.chmodSync(path.join(state, 'mcat'), 0o777);
    const e = { HOME: dir, XDG_STATE_HOME: state };
    expect(() => Journal.open(defaultJournalPath('-', 'h', { env: e }), { inputHash: 'h', total: 1, resume: false, env: e })).toThrow(
      `the state folder ${path.join(state, 'mcat')} can be written by other users; refusing to keep journals there`,
    );
    expect(fs.readdirSync(path.join(state, 'mcat'))).toEqual([]);
    // mcat's state folder a link to someone's folder: nothing made in the target
    const target = path.join(dir, 'their-folder');
    fs.mkdirSync(target, { mode: 0o700 });
    const state2 = path.join(dir, 'linked-state');
    fs.mkdirSync(state2);
    fs.symlinkSync(target, path.join(state2, 'mcat'));
    const e2 = { HOME: dir, XDG_STATE_HOME: state2 };
    expect(() => Journal.open(defaultJournalPath('-', 'h', { env: e2 }), { inputHash: 'h', total: 1, resume: false, env: e2 })).toThrow(/state folder .* is a symbolic link/);
    expect(fs.readdirSync(target)).toEqual([]);
  });
});
