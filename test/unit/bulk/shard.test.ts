import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseEdits, type ParsedEdit } from '../../../src/bulk/edits';
import { defaultJournalPath, inputSource } from '../../../src/bulk/files';
import { Journal, type JournalRecord } from '../../../src/bulk/journal';
import { checkChangedInput, checkOtherSplits, groupDigits, otherSplits, parseShard, selectShard, shardKeyOf, shardOfId, shardSummary } from '../../../src/bulk/shard';
import { formatDryRun } from '../../../src/bulk/dryrun';
import { summaryLines } from '../../../src/bulk/report';
import type { ApplyResult } from '../../../src/bulk/apply';
import { InputError } from '../../../src/client/errors';

const id = (n: number) => n.toString(16).padStart(24, '0');

function parsed(lines: object[]): ParsedEdit[] {
  const r = parseEdits(lines.map((l) => JSON.stringify(l)).join('\n'), { fileName: 'x.ndjson' });
  expect(r.errors).toEqual([]);
  return r.edits;
}

describe('--shard K/N', () => {
  it('K/N counts from 1; auto/N takes JOB_COMPLETION_INDEX + 1', () => {
    expect(parseShard('1/1', {})).toEqual({ index: 1, count: 1 });
    expect(parseShard('4/4', {})).toEqual({ index: 4, count: 4 });
    expect(parseShard('02/4', {})).toEqual({ index: 2, count: 4 });
    expect(parseShard('1024/1024', {})).toEqual({ index: 1024, count: 1024 });
    expect(parseShard('auto/4', { JOB_COMPLETION_INDEX: '0' })).toEqual({ index: 1, count: 4, from: 'JOB_COMPLETION_INDEX' });
    expect(parseShard('auto/4', { JOB_COMPLETION_INDEX: '3' })).toEqual({ index: 4, count: 4, from: 'JOB_COMPLETION_INDEX' });
  });

  it('anything else is a usage error naming the value', () => {
    const bad: [string, NodeJS.ProcessEnv, string][] = [
      ['0/4', {}, '--shard 0/4: the shard must be 1 to 4, got 0'],
      ['5/4', {}, '--shard 5/4: the shard must be 1 to 4, got 5'],
      ['1/0', {}, '--shard 1/0: the number of shards must be 1 to 1024, got 0'],
      ['1/1025', {}, '--shard 1/1025: the number of shards must be 1 to 1024, got 1025'],
      ['1/99999999999999999999', {}, 'the number of shards must be 1 to 1024'],
      ['', {}, "--shard must be K/N (shard K of N, counted from 1, e.g. 2/4) or auto/N, got ''"],
      [' 1/4', {}, '--shard must be K/N'],
      ['1/4/8', {}, '--shard must be K/N'],
      ['+1/4', {}, '--shard must be K/N'],
      ['auto', { JOB_COMPLETION_INDEX: '0' }, '--shard must be K/N'],
      ['auto/4', {}, '--shard auto/4 takes the shard from JOB_COMPLETION_INDEX, which is not set'],
      ['auto/4', { JOB_COMPLETION_INDEX: ' ' }, 'which is not set'],
      ['auto/4', { JOB_COMPLETION_INDEX: '4' }, "--shard auto/4: JOB_COMPLETION_INDEX must be 0 to 3, got '4'"],
      ['auto/4', { JOB_COMPLETION_INDEX: '-1' }, "JOB_COMPLETION_INDEX must be 0 to 3, got '-1'"],
      ['auto/4', { JOB_COMPLETION_INDEX: '1e0' }, "JOB_COMPLETION_INDEX must be 0 to 3, got '1e0'"],
    ];
    for (const [value, env, message] of bad) {
      let err: unknown;
      try {
        parseShard(value, env);
      } catch (e) {
        err = e;
      }
      expect(err, value).toBeInstanceOf(InputError);
      expect((err as Error).message, value).toContain(message);
    }
    expect(() => parseShard('0/4', {})).toThrow(expect.objectContaining({ hint: 'shards are counted from 1; to count from 0 as JOB_COMPLETION_INDEX does, use auto/4' }));
  });

  it('the hash is SHA-256 (first 4 bytes, big-endian) mod N, plus 1: fixed values, as `sha256sum` computes them', () => {
    // printf %s ID | sha256sum | cut -c1-8  ->  df0f4c66, b7e92539, a0c8d66f, 89e6e325, 347d7140
    expect(['ad0ed2b4b45b8d81945103f4', '37fa8e8a9b70d252ee2b7e77', '1579c3b807f0227adb63f7c1', 'ca4cda5a7a2888a359ea1de8', '3:0123456789ab'].map((s) => [shardOfId(s, 4), shardOfId(s, 7), shardOfId(s, 1024)])).toEqual([
      [3, 2, 103],
      [2, 1, 314],
      [4, 2, 624],
      [2, 3, 806],
      [1, 7, 321],
    ]);
    expect(shardOfId('anything', 1)).toBe(1);
  });

  it('spreads ids evenly', () => {
    const per = [0, 0, 0, 0];
    for (let i = 0; i < 20_000; i++) per[shardOfId(id(i * 7919), 4) - 1]++;
    for (const n of per) expect(Math.abs(n - 5000)).toBeLessThan(250);
  });

  it('an edit hashes on the playlist or group it changes; a create on its edit key', () => {
    const edits = parsed([
      { op: 'replace', playlistId: id(1), tracks: [] },
      { op: 'details', playlistId: id(2), name: 'n' },
      { op: 'group-add', groupId: id(3), playlistIds: [id(1)] },
      { op: 'group-replace', groupId: id(4), name: 'g' },
      { op: 'create', name: 'c' },
    ]);
    expect(edits.map(shardKeyOf)).toEqual([id(1), id(2), id(3), id(4), edits[4].key]);
    expect(edits[4].key).toMatch(/^5:[0-9a-f]{12}$/);
  });

  it('the shards are disjoint, together the whole input, in input order; every edit of one playlist or group in one shard', () => {
    const lines: object[] = [];
    for (let i = 0; i < 300; i++) {
      const k = i % 40;
      lines.push(i % 5 === 0 ? { op: 'create', name: `c${i}` } : i % 7 === 0 ? { op: 'group-add', groupId: id(1000 + (k % 6)), playlistIds: [id(k)] } : { op: 'details', playlistId: id(k), description: `${i}` });
    }
    const edits = parsed(lines);
    const n = 5;
    const shards = Array.from({ length: n }, (_, i) => selectShard(edits, { index: i + 1, count: n }));
    const seen = shards.flat().map((e) => e.index);
    expect(new Set(seen).size).toBe(edits.length);
    expect([...seen].sort((a, b) => a - b)).toEqual(edits.map((e) => e.index));
    const owner = new Map<string, number>();
    shards.forEach((s, i) => {
      expect(s.map((e) => e.index)).toEqual([...s.map((e) => e.index)].sort((a, b) => a - b));
      for (const e of s) {
        // positions, lines and keys are those of the whole file
        expect(e).toBe(edits[e.index]);
        const k = shardKeyOf(e);
        expect(owner.get(k) ?? i).toBe(i);
        owner.set(k, i);
      }
      expect(s.length).toBeGreaterThan(10);
    });
    expect(selectShard(edits, { index: 1, count: 1 })).toEqual(edits);
  });

  it('says which edits a shard has: "shard 2/4: 250 of 1,000 edits", in the dry run and the summary too', () => {
    expect(shardSummary({ index: 2, count: 4 }, 250, 1000)).toBe('shard 2/4: 250 of 1,000 edits');
    expect(shardSummary({ index: 1, count: 1 }, 1, 1)).toBe('shard 1/1: 1 of 1 edit');
    expect([0, 999, 1000, 1234567].map(groupDigits)).toEqual(['0', '999', '1,000', '1,234,567']);
    const dry = formatDryRun([], 'x.ndjson', 'shard 3/4: 0 of 2 edits');
    expect(dry).toEqual(['dry run: shard 3/4: 0 of 2 edits: 0 would change, 0 would create, 0 group edits, 0 unchanged, 0 would fail; nothing was sent']);
    const result = { total: 250, applied: 250, skipped: 0, failed: [], pending: [], interrupted: false, created: [], carried: [], orphans: [], journalPath: 'j', runId: 'r', resumed: false, elapsedMs: 1200 } as ApplyResult;
    expect(summaryLines(result, { shard: '2/4' })[0]).toBe('mcat: shard 2/4: 250 applied, 0 failed of 250 edits in 1.2 s');
    expect(summaryLines(result)[0]).toBe('mcat: 250 applied, 0 failed of 250 edits in 1.2 s');
  });
});

describe('shard journals', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcat-shard-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const env = () => ({ HOME: dir, XDG_STATE_HOME: path.join(dir, 'state') });

  it('each shard has its own default journal, beside the unsplit one (same stem)', () => {
    const f = path.join(dir, 'big.ndjson');
    fs.writeFileSync(f, '');
    const whole = defaultJournalPath(f, 'h', { env: env() });
    const s2 = defaultJournalPath(f, 'h', { env: env(), shard: { index: 2, count: 4 } });
    expect(s2).toBe(whole.replace(/\.journal$/, '.shard-2-of-4.journal'));
    const names = [1, 2, 3, 4].map((k) => defaultJournalPath(f, 'h', { env: env(), shard: { index: k, count: 4 } }));
    expect(new Set(names).size).toBe(4);
    expect(defaultJournalPath('-', 'h', { env: env(), shard: { index: 1, count: 2 } })).toMatch(/\/stdin-[0-9a-f]{16}\.shard-1-of-2\.journal$/);
  });

  it('records the shard in the header; a resume of another shard (or of the whole input) is refused', async () => {
    const file = path.join(dir, 'j');
    const o = Journal.open(file, { inputHash: 'h', total: 2, resume: false, shard: '1/4' });
    o.journal.append({ type: 'started', key: '1:a', line: 1, op: 'details', at: 't' });
    await o.journal.close();
    expect(JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[0])).toMatchObject({ type: 'header', shard: '1/4', total: 2 });
    expect(() => Journal.open(file, { inputHash: 'h', total: 2, resume: true, shard: '2/4' })).toThrow(`the journal ${file} was written for shard 1/4, not shard 2/4: refusing to resume`);
    expect(() => Journal.open(file, { inputHash: 'h', total: 2, resume: true })).toThrow(`the journal ${file} was written for shard 1/4, not the whole input: refusing to resume`);
    expect(() => Journal.open(file, { inputHash: 'h', total: 2, resume: false, shard: '2/4' })).toThrow(
      expect.objectContaining({ message: `the journal ${file} holds an unfinished run of these edits, shard 1/4, (0 of 2 done)`, hint: 'finish that run (--shard 1/4 --resume), or give this one another --journal' }),
    );
    const again = Journal.open(file, { inputHash: 'h', total: 2, resume: true, shard: '1/4' });
    expect(again.resumed).toBe(true);
    await again.journal.close();
  });

  it('a run is refused while an unfinished run of the same input split another way has sent edits', async () => {
    const f = path.join(dir, 'big.ndjson');
    fs.writeFileSync(f, '');
    const e = env();
    const at = (shard?: { index: number; count: number }) => defaultJournalPath(f, 'h', { env: e, ...(shard ? { shard } : {}) });
    // split 3 ways: shard 1 sent an edit and stopped, shard 2 finished, shard 3 sent nothing
    const s1 = Journal.open(at({ index: 1, count: 3 }), { inputHash: 'h', total: 2, resume: false, shard: '1/3', env: e });
    s1.journal.append({ type: 'started', key: '1:a', line: 1, op: 'create', at: 't' });
    await s1.journal.close();
    const s2 = Journal.open(at({ index: 2, count: 3 }), { inputHash: 'h', total: 1, resume: false, shard: '2/3', env: e });
    s2.journal.append({ type: 'done', key: '2:b', line: 2, op: 'details', at: 't' });
    s2.journal.append({ type: 'end', applied: 1, failed: 0, skipped: 0, interrupted: false, at: 't' });
    await s2.journal.close();
    await Journal.open(at({ index: 3, count: 3 }), { inputHash: 'h', total: 1, resume: false, shard: '3/3', env: e }).journal.close();
    // another input's journal is none of its business
    fs.writeFileSync(path.join(path.dirname(at()), 'other.ndjson-0000000000000000.shard-1-of-2.journal'), '');

    expect(otherSplits(at({ index: 2, count: 3 }), { index: 2, count: 3 })).toEqual([]);
    expect(otherSplits(at({ index: 1, count: 4 }), { index: 1, count: 4 })).toEqual([{ path: at({ index: 1, count: 3 }), split: 'shard 1/3' }]);
    expect(otherSplits(at(), undefined)).toEqual([{ path: at({ index: 1, count: 3 }), split: 'shard 1/3' }]);
    expect(() => checkOtherSplits(at({ index: 2, count: 4 }), { index: 2, count: 4 }, 'big.ndjson')).toThrow(
      expect.objectContaining({
        message: `an unfinished run of these edits split them another way (shard 1/3: ${at({ index: 1, count: 3 })}); running now could apply its edits twice`,
        hint: 'finish that run first (mcat playlist apply big.ndjson --shard 1/3 --resume), or remove its journal to abandon it',
      }),
    );
    expect(() => checkOtherSplits(at({ index: 3, count: 3 }), { index: 3, count: 3 }, 'big.ndjson')).not.toThrow();

    // the unsplit run unfinished: a split run is refused too
    fs.rmSync(at({ index: 1, count: 3 }));
    const whole = Journal.open(at(), { inputHash: 'h', total: 3, resume: false, env: e });
    whole.journal.append({ type: 'failed', key: '1:a', line: 1, op: 'details', at: 't', error: 'ApiError', message: 'm' });
    await whole.journal.close();
    expect(() => checkOtherSplits(at({ index: 1, count: 2 }), { index: 1, count: 2 }, 'big.ndjson')).toThrow(
      expect.objectContaining({ message: expect.stringContaining('(not split: '), hint: 'finish that run first (mcat playlist apply big.ndjson --resume), or remove its journal to abandon it' }),
    );
    expect(() => checkOtherSplits(at(), undefined, 'big.ndjson')).not.toThrow();
  });

  it('a plain run of a file changed since a run that did not finish: refused when that run made playlists (or may have), or runs now; not for another target, nor when it made none', async () => {
    const f = path.join(dir, 'big.ndjson');
    fs.writeFileSync(f, '');
    const e = env();
    const source = inputSource(f)!;
    const oldPath = defaultJournalPath(f, 'old', { env: e });
    const newPath = defaultJournalPath(f, 'new', { env: e });
    const check = (resume: boolean, target = 'T1') => () => checkChangedInput(newPath, source, 'new', 'big.ndjson', resume, target);
    const write = async (records: JournalRecord[], target: string | undefined = 'T1') => {
      fs.rmSync(oldPath, { force: true });
      const j = Journal.open(oldPath, { inputHash: 'old', total: 3, resume: false, source, env: e, ...(target ? { target } : {}) });
      for (const r of records) j.journal.append(r);
      await j.journal.close();
    };
    const failed: JournalRecord = { type: 'failed', key: '3:c', line: 3, op: 'details', at: 't', error: 'ApiError', message: 'm' };
    // it made none (a details done, one failed): a plain run goes ahead; --resume is refused as before
    await write([{ type: 'done', key: '1:a', line: 1, op: 'details', at: 't' }, failed]);
    expect(check(false)).not.toThrow();
    expect(check(true)).toThrow(/refusing to resume/);
    // a create done, an ifMissing replace that created, a create sent with its answer lost: 3 made (or maybe)
    await write([
      { type: 'done', key: '1:a', line: 1, op: 'create', at: 't', playlistId: 'p1', created: true },
      { type: 'done', key: '2:b', line: 2, op: 'replace', at: 't', playlistId: 'p2', created: true },
      { type: 'started', key: '3:c', line: 3, op: 'create', at: 't', marker: 'r:3:c' },
    ]);
    expect(check(false)).toThrow(
      expect.objectContaining({
        message: `big.ndjson has changed since its run that did not finish (${oldPath}), which made 3 playlists (or may have): a new run would make them again; refusing to run`,
        hint: 'put back the file as it was and run again with --resume, or remove that journal to abandon its run (what it made stays)',
      }),
    );
    // another user's run of the file: its playlists are that user's
    expect(check(false, 'T2')).not.toThrow();
    expect(check(true, 'T2')).not.toThrow();
    // a journal with no target (an older mcat): counted as this user's
    await write([{ type: 'done', key: '1:a', line: 1, op: 'create', at: 't', playlistId: 'p1', created: true }], undefined);
    expect(check(false)).toThrow(/which made a playlist \(or may have\): a new run would make it again/);
    // finished: no longer in the way
    await write([...['1:a', '2:b', '3:c'].map((key, i): JournalRecord => ({ type: 'done', key, line: i + 1, op: 'create', at: 't', created: true })), { type: 'end', applied: 3, failed: 0, skipped: 0, interrupted: false, at: 't' }]);
    expect(check(false)).not.toThrow();
    // running now (its lock held), even having made nothing: refused
    fs.rmSync(oldPath);
    const live = Journal.open(oldPath, { inputHash: 'old', total: 3, resume: false, source, env: e, target: 'T1' });
    expect(check(false)).toThrow(/has changed since its run now running .*: refusing to start a run of its new version beside it/);
    await live.journal.close();
  });

  it('two runs split two ways started at the same moment: the one that looks while the other holds its lock is refused, before anything is sent', async () => {
    const f = path.join(dir, 'big.ndjson');
    fs.writeFileSync(f, '');
    const e = env();
    const at = (shard?: { index: number; count: number }) => defaultJournalPath(f, 'h', { env: e, ...(shard ? { shard } : {}) });
    // shard 1/2 has its lock and journal, and has sent nothing yet
    const s1 = Journal.open(at({ index: 1, count: 2 }), { inputHash: 'h', total: 2, resume: false, shard: '1/2', env: e });
    const open = () => Journal.open(at(), { inputHash: 'h', total: 4, resume: false, env: e, afterLock: () => checkOtherSplits(at(), undefined, 'big.ndjson') });
    expect(open).toThrow(
      expect.objectContaining({
        message: `another mcat run (pid ${process.pid}) is applying these edits split another way (shard 1/2: ${at({ index: 1, count: 2 })}); running now could apply its edits twice`,
        hint: 'wait for it to finish, and split every run of one input the same way (mcat playlist apply big.ndjson --shard 1/2 --resume carries it on)',
      }),
    );
    // refused holding its own lock, which it gave back; no journal made
    expect(fs.existsSync(at())).toBe(false);
    // a run that holds only its lock (its journal not made yet) counts too
    fs.rmSync(at({ index: 1, count: 2 }));
    expect(otherSplits(at(), undefined)).toEqual([{ path: at({ index: 1, count: 2 }), split: 'shard 1/2', pid: process.pid }]);
    await s1.journal.close();
    // once it has finished (here: sent nothing and ended), the other split may run
    const whole = open();
    await whole.journal.close();
  });
});
