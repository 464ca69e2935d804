// Where a download lands: checked before anything is sent, written to a new temporary file, moved
// into place only when complete, never over a file that appeared meanwhile, never left behind.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { McatError } from '../../../src/client/errors';
import { UsageError } from '../../../src/cli/errors';
import { checkTarget, PartFile } from '../../../src/cli/part-file';

const folder = () => mkdtempSync(join(tmpdir(), 'mcat-part-'));
const never = new AbortController().signal;

describe('checkTarget', () => {
  it('a new name in an existing folder is fine; an existing one only with clobber', async () => {
    const d = folder();
    await expect(checkTarget(join(d, 'new.mp3'), false)).resolves.toBeUndefined();
    writeFileSync(join(d, 'old.mp3'), 'x');
    await expect(checkTarget(join(d, 'old.mp3'), false)).rejects.toThrow(`${join(d, 'old.mp3')} already exists; not overwritten`);
    await expect(checkTarget(join(d, 'old.mp3'), true)).resolves.toBeUndefined();
  });

  it('a dangling symlink exists; a folder or a missing folder is refused even with clobber', async () => {
    const d = folder();
    symlinkSync(join(d, 'nowhere'), join(d, 'link.mp3'));
    await expect(checkTarget(join(d, 'link.mp3'), false)).rejects.toBeInstanceOf(UsageError);
    mkdirSync(join(d, 'sub'));
    await expect(checkTarget(join(d, 'sub'), true)).rejects.toThrow(`${join(d, 'sub')} is a folder`);
    await expect(checkTarget(join(d, 'no/such/a.mp3'), true)).rejects.toThrow(`the folder ${join(d, 'no/such')} does not exist`);
  });
});

describe('PartFile', () => {
  it("removes what killed downloads of the same name left (their process gone); never a running one's, a link, or another name's", async () => {
    const d = folder();
    const target = join(d, 'a.mp3');
    const victim = join(folder(), 'victim');
    writeFileSync(victim, 'precious');
    // pids past Linux's pid_max (2^22) name no process
    const dead = ['.a.mp3.4194305-deadbeef.part', '.a.mp3.4194399-0badf00d.part'];
    for (const n of dead) writeFileSync(join(d, n), 'half a track');
    const kept = ['.a.mp3.1-deadbeef.part', '.b.mp3.4194305-deadbeef.part', '.a.mp3.4194305.part', 'a.mp3.4194305-deadbeef.part'];
    for (const n of kept) writeFileSync(join(d, n), 'x');
    symlinkSync(victim, join(d, '.a.mp3.4194306-deadbeef.part'));
    const part = await PartFile.create(target);
    const left = readdirSync(d).sort();
    for (const n of dead) expect(left).not.toContain(n);
    expect(left).toEqual([...kept, '.a.mp3.4194306-deadbeef.part', part.path.slice(d.length + 1)].sort());
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    await part.discard();
  });

  it('fills a hidden 0600 file beside the target and moves it into place', async () => {
    const d = folder();
    const target = join(d, 'a.mp3');
    const part = await PartFile.create(target);
    expect(part.path.startsWith(join(d, '.a.mp3.'))).toBe(true);
    expect(statSync(part.path).mode & 0o777).toBe(0o600);
    await part.fill(Readable.from([Buffer.from('ab'), Buffer.from('cd')]), [], never);
    await part.commit(false);
    expect(readFileSync(target, 'utf8')).toBe('abcd');
    expect(readdirSync(d)).toEqual(['a.mp3']);
  });

  it('without clobber, a file that appeared during the download is kept, and so is the download', async () => {
    const d = folder();
    const target = join(d, 'a.mp3');
    const part = await PartFile.create(target);
    await part.fill(Readable.from([Buffer.from('new')]), [], never);
    writeFileSync(target, 'theirs');
    const err = await part.commit(false).catch((e) => e);
    expect(err).toBeInstanceOf(McatError);
    expect(err.message).toBe(`${target} appeared during the download; not overwritten`);
    const kept = part.path.replace(/\.part$/, '.kept');
    expect(err.hint).toBe(`the download was kept as ${kept}`);
    expect(readFileSync(target, 'utf8')).toBe('theirs');
    expect(readFileSync(kept, 'utf8')).toBe('new');
    await part.discard();
    expect(existsSync(kept)).toBe(true);
    // the next download of that name (once this process is gone) leaves it alone
    const next = await PartFile.create(target);
    await next.discard();
    expect(readdirSync(d).sort()).toEqual([kept.slice(d.length + 1), 'a.mp3'].sort());
  });

  it('discard removes the temporary file; so does the process exiting (a second Ctrl-C)', async () => {
    const d = folder();
    const a = await PartFile.create(join(d, 'a.mp3'));
    await a.discard();
    expect(readdirSync(d)).toEqual([]);

    const before = process.listeners('exit');
    const b = await PartFile.create(join(d, 'b.mp3'));
    const added = process.listeners('exit').filter((l) => !before.includes(l));
    expect(added).toHaveLength(1);
    (added[0] as () => void)();
    expect(existsSync(b.path)).toBe(false);
    await b.discard();
    expect(process.listeners('exit')).toEqual(before);
  });

  it('a stopped copy fails and leaves the file for discard to remove', async () => {
    const d = folder();
    const part = await PartFile.create(join(d, 'a.mp3'));
    const ac = new AbortController();
    const endless = new Readable({ read() {} });
    endless.push('x');
    setTimeout(() => ac.abort(), 10);
    await expect(part.fill(endless, [], ac.signal)).rejects.toMatchObject({ name: 'AbortError' });
    await part.discard();
    expect(readdirSync(d)).toEqual([]);
  });
});
