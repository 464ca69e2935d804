import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { readOnlyFolder } from '../../helpers/temp';
import { join } from 'node:path';
import { configDir, openStore } from '../../../src/config/store';
import { McatError, InputError } from '../../../src/client/errors';

let root: string;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'mcat-store-'));
  dir = join(root, 'conf');
  env = { MCAT_CONFIG_DIR: dir, HOME: root };
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const mode = (p: string) => statSync(p).mode & 0o777;
const secretProfile = { baseUrl: 'https://api.example.com', consumerKey: 'key-1234', consumerSecret: 'TOP-SECRET-consumer', token: 'tok-9876', tokenSecret: 'TOP-SECRET-token', country: 'GB' };

describe('openStore', () => {
  it('uses MCAT_CONFIG_DIR, else XDG_CONFIG_HOME/mcat', () => {
    expect(configDir(env)).toBe(dir);
    if (process.platform === 'linux') {
      expect(configDir({ HOME: root, XDG_CONFIG_HOME: join(root, 'xdg') })).toBe(join(root, 'xdg', 'mcat'));
      expect(configDir({ HOME: root, MCAT_CONFIG_DIR: '' })).toBe(join(root, '.config', 'mcat'));
    }
  });

  it('reading creates nothing: no file, no directory', async () => {
    const store = await openStore(env);
    expect(store.path).toBe(join(dir, 'config.json'));
    expect(store.snapshot()).toEqual({ profiles: {} });
    expect(store.current()).toBeUndefined();
    expect(existsSync(dir)).toBe(false);
  });

  it('reading an existing file does not rewrite it', async () => {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'config.json');
    const text = JSON.stringify({ current: 'a', profiles: { a: { baseUrl: 'https://a.example.com' } } });
    writeFileSync(file, text, { mode: 0o600 });
    const past = new Date(Date.now() - 60_000);
    const { utimesSync } = await import('node:fs');
    utimesSync(file, past, past);
    const before = statSync(file).mtimeMs;
    const store = await openStore(env);
    expect(store.snapshot()).toEqual({ current: 'a', profiles: { a: { baseUrl: 'https://a.example.com' } } });
    expect(statSync(file).mtimeMs).toBe(before);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('writes the file 0600 on creation and after later saves, even if the mode was loosened', async () => {
    const old = process.umask(0o000);
    try {
      const store = await openStore(env);
      await store.setProfile('live', secretProfile);
      expect(mode(store.path)).toBe(0o600);
      chmodSync(store.path, 0o644);
      await store.use('live');
      expect(mode(store.path)).toBe(0o600);
      chmodSync(store.path, 0o666);
      await store.setProfile('other', { baseUrl: 'https://o.example.com' });
      expect(mode(store.path)).toBe(0o600);
      chmodSync(store.path, 0o640);
      expect(await store.removeProfile('other')).toBe(true);
      expect(mode(store.path)).toBe(0o600);
      // a second process opening the same file sees the saved state
      const again = await openStore(env);
      expect(again.snapshot()).toEqual({ current: 'live', profiles: { live: secretProfile } });
      expect(mode(dir)).toBe(0o700);
    } finally {
      process.umask(old);
    }
  });

  it('setProfile drops empty values; use/removeProfile keep current consistent', async () => {
    const store = await openStore(env);
    await store.setProfile('a', { baseUrl: 'https://a.example.com', token: '', tokenSecret: '' });
    expect(store.snapshot().profiles.a).toEqual({ baseUrl: 'https://a.example.com' });
    expect(store.current()).toBeUndefined();
    await store.use('a');
    expect(store.current()).toBe('a');
    await expect(store.use('nope')).rejects.toThrow(InputError);
    await store.use('sandbox');
    expect(store.current()).toBeUndefined();
    await store.use('a');
    expect(await store.removeProfile('a')).toBe(true);
    expect(store.current()).toBeUndefined();
    expect(await store.removeProfile('a')).toBe(false);
    expect(JSON.parse(readFileSync(store.path, 'utf8'))).toEqual({ profiles: {} });
  });

  it("setProfile 'ifFirst' selects only the first profile stored, not a later one where none is current (the sandbox chosen)", async () => {
    const store = await openStore(env);
    expect(await store.setProfile('a', {}, 'ifFirst')).toBeUndefined();
    expect(store.current()).toBe('a');
    await store.setProfile('b', {}, 'ifFirst');
    expect(store.current()).toBe('a');
    await store.use('sandbox');
    await store.setProfile('c', {}, 'ifFirst');
    expect(store.current()).toBeUndefined();
    await store.setProfile('c', {}, 'always');
    expect(store.current()).toBe('c');
  });

  it('rejects bad profile names', async () => {
    const store = await openStore(env);
    for (const bad of ['', 'a b', 'a.b', 'x'.repeat(41), '../x']) {
      await expect(store.setProfile(bad, {}), bad).rejects.toThrow(/invalid profile name/);
    }
    await store.setProfile('ok_Name-1', {});
    expect(Object.keys(store.snapshot().profiles)).toEqual(['ok_Name-1']);
  });

  it('keeps profiles saved by another process in the meantime', async () => {
    const a = await openStore(env);
    const b = await openStore(env);
    await a.setProfile('one', { baseUrl: 'https://1.example.com' });
    await b.setProfile('two', { baseUrl: 'https://2.example.com' });
    expect(Object.keys((await openStore(env)).snapshot().profiles).sort()).toEqual(['one', 'two']);
  });

  it("a save removes the temporary files of saves killed mid-write (secrets and all); never a link, or another name", async () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const victim = join(root, 'victim');
    writeFileSync(victim, 'keep');
    writeFileSync(join(dir, 'config.json.tmp-1732761234abc123'), '{"profiles":{"half":{"consumerSecret":"TOP-SEC', { mode: 0o600 });
    writeFileSync(join(dir, 'config.json.tmp-x'), 'not conf\'s');
    symlinkSync(victim, join(dir, 'config.json.tmp-17327612340badf0'));
    const store = await openStore(env);
    await store.setProfile('a', secretProfile);
    expect(readdirSync(dir).sort()).toEqual(['config.json', 'config.json.tmp-17327612340badf0', 'config.json.tmp-x']);
    expect(readFileSync(victim, 'utf8')).toBe('keep');
  });

  it('a corrupt file: one clear usage error naming the file, no secret from it', async () => {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'config.json');
    writeFileSync(file, '{"profiles": {"x": {"consumerSecret": "TOP-SECRET-consumer" oops', { mode: 0o600 });
    const err = await openStore(env).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    const e = err as InputError;
    expect(e.message).toBe(`config file ${file} is not valid JSON`);
    expect(e.hint).toMatch(/fix it, or remove it/);
    expect(e.message + e.hint).not.toContain('TOP-SECRET');
    // nothing was rewritten
    expect(readFileSync(file, 'utf8')).toContain('oops');
  });

  it('a file of the wrong shape is named too', async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), '[1,2]');
    await expect(openStore(env)).rejects.toThrow(/is not a valid mcat config: expected a JSON object/);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { a: { consumerSecret: 42 } } }));
    await expect(openStore(env)).rejects.toThrow(/'consumerSecret' of profile 'a' must be a string/);
  });

  it('an unreadable file: cannot read config file <path>: <reason>', async () => {
    // a directory where the file should be: unreadable as a file even for root
    mkdirSync(join(dir, 'config.json'), { recursive: true });
    const err = await openStore(env).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toBe(`cannot read config file ${join(dir, 'config.json')}: it is a directory`);
  });

  it('a failed write is a one-line error naming the file', async () => {
    writeFileSync(join(root, 'blocker'), 'x');
    const store = await openStore({ MCAT_CONFIG_DIR: join(root, 'blocker', 'sub') });
    await expect(store.setProfile('a', {})).rejects.toThrow(/cannot write config file .*blocker\/sub\/config\.json: a part of the path is not a directory/);
  });

  // A config folder that cannot be made: Node's recursive mkdir says ENOENT on a read-only file
  // system, and the message said 'cannot write config file …: ENOENT'. Read-only for a user
  // (chmod), or a read-only tmpfs for root, where this machine lets the tests mount one.
  it('a config folder that cannot be made: the real reason, not ENOENT', async () => {
    const ro = join(root, 'ro');
    const undo = readOnlyFolder(ro);
    if (!undo) return; // neither a user nor a mount here: nothing to test it with
    try {
      const store = await openStore({ MCAT_CONFIG_DIR: join(ro, 'a', 'conf'), HOME: root });
      await expect(store.setProfile('a', {})).rejects.toThrow(/^cannot write config file .*\/ro\/a\/conf\/config\.json: (read-only file system|permission denied)$/);
    } finally {
      undo();
    }
  });

  // a full disk: a small tmpfs, where this machine lets the tests mount one (root on Linux)
  const fullDisk = (() => {
    if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined;
    return (at: string): boolean => {
      mkdirSync(at, { recursive: true });
      try {
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', at], { stdio: 'ignore' });
      } catch {
        return false;
      }
      return true;
    };
  })();
  it.skipIf(!fullDisk)('a full disk: one line and a hint about space, the profiles saved before kept, no file left behind (not even the lock)', async () => {
    const disk = join(root, 'disk');
    if (!fullDisk!(disk)) return;
    try {
      const env = { MCAT_CONFIG_DIR: join(disk, 'conf'), HOME: root };
      const store = await openStore(env);
      await store.setProfile('kept', { consumerKey: 'k' });
      const before = readFileSync(join(disk, 'conf', 'config.json'), 'utf8');
      // fill what is left
      try {
        writeFileSync(join(disk, 'fill'), Buffer.alloc(64 * 1024));
      } catch {
        // full
      }
      const again = await openStore(env);
      const err = await (async () => {
        try {
          await again.setProfile('big', { consumerKey: 'k'.repeat(20_000) });
        } catch (e) {
          return e as McatError;
        }
      })();
      expect(err).toBeInstanceOf(McatError);
      expect(err!.message).toBe(`cannot write config file ${join(disk, 'conf', 'config.json')}: no space left on device`);
      expect(err!.hint).toBe('free some space on that disk, or set MCAT_CONFIG_DIR to another directory');
      expect(readFileSync(join(disk, 'conf', 'config.json'), 'utf8')).toBe(before);
      expect(readdirSync(join(disk, 'conf'))).toEqual(['config.json']);
      // the disk has room again: the next save is not held up
      rmSync(join(disk, 'fill'));
      const t0 = Date.now();
      await again.setProfile('next', { consumerKey: 'k' });
      expect(Date.now() - t0).toBeLessThan(1000);
      expect(Object.keys((await openStore(env)).snapshot().profiles).sort()).toEqual(['kept', 'next']);
    } finally {
      execFileSync('umount', [disk], { stdio: 'ignore' });
    }
  });

  it('never writes through a symbolic link at the profiles file: exit-1 error naming it, the target untouched', async () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, 'config.json');
    const target = join(root, 'elsewhere.json');
    const text = JSON.stringify({ profiles: { a: { baseUrl: 'https://a.example.com' } } });
    writeFileSync(target, text, { mode: 0o644 });
    symlinkSync(target, file);
    const store = await openStore(env);
    const err = await (async () => {
      try {
        await store.setProfile('live', secretProfile);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(McatError);
    expect(err).not.toBeInstanceOf(InputError);
    expect((err as Error).message).toBe(`cannot write config file ${file}: it is a symbolic link`);
    expect((err as McatError).hint).toMatch(/replace the link/);
    expect(readFileSync(target, 'utf8')).toBe(text);
    expect(statSync(target).mode & 0o777).toBe(0o644);
    expect(readlinkSync(file)).toBe(target);
    // a dangling link too: nothing is created where it points
    rmSync(target);
    await expect(store.setProfile('live', secretProfile)).rejects.toThrow(/it is a symbolic link/);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('tightens a folder of ours to 0700 on save', async () => {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    chmodSync(dir, 0o755);
    const store = await openStore(env);
    await store.setProfile('live', secretProfile);
    expect(mode(dir)).toBe(0o700);
    expect(mode(store.path)).toBe(0o600);
  });

  it.skipIf(process.getuid?.() !== 0)('refuses to write into a folder of another user (who could swap the file)', async () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chownSync(dir, 65534, 65534);
    const store = await openStore(env);
    await expect(store.setProfile('live', secretProfile)).rejects.toThrow(`cannot write config file ${join(dir, 'config.json')}: its folder ${dir} belongs to another user`);
    expect(readdirSync(dir)).toEqual([]);
    expect(lstatSync(dir).uid).toBe(65534);
  });
});
