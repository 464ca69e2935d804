// The sandbox's files hold users' data: 0600 files in a 0700 folder, and no file reached through
// a symlink planted where the database goes (issue 11).
import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, SandboxFileError } from '../../src/sandbox/index';
import { call, urlOf } from './signer';

const made: string[] = [];
afterEach(() => {
  while (made.length) rmSync(made.pop()!, { recursive: true, force: true });
});
function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), 'mcat-sbfiles-'));
  made.push(d);
  return d;
}
const mode = (p: string) => statSync(p).mode & 0o777;

/** Starts a sandbox on dir, stores a playlist (so the WAL has content), and leaves it running for the checks. */
async function used(dir: string) {
  const sb = await startSandbox({ dataDir: dir, port: 0 });
  const c = sb.info.consumers.find((x) => x.countries.length > 1)!;
  const u = sb.info.users.find((x) => x.userId === sb.info.examples.lockerUser)!;
  const r = await call('POST', urlOf(sb.baseUrl, '/1.2/playlists', { country: 'GB' }), { creds: { consumerKey: c.key, consumerSecret: c.secret, token: u.token, tokenSecret: u.tokenSecret }, json: { name: 'private' } });
  expect(r.status).toBe(201);
  return sb;
}

describe('sandbox files', () => {
  it('a new data dir (and its missing parents) is 0700; the db, its WAL and SHM and server.json are 0600', async () => {
    const root = scratch();
    const dir = join(root, 'a/b/sandbox');
    const sb = await used(dir);
    try {
      expect(mode(dir)).toBe(0o700);
      expect(mode(join(root, 'a'))).toBe(0o700);
      for (const f of ['sandbox.db', 'sandbox.db-wal', 'sandbox.db-shm', 'server.json']) {
        expect(existsSync(join(dir, f)), f).toBe(true);
        expect(mode(join(dir, f)), f).toBe(0o600);
      }
    } finally {
      await sb.close();
    }
  });

  it('an existing data dir and db of looser modes are tightened', async () => {
    const dir = scratch();
    chmodSync(dir, 0o755);
    const first = await startSandbox({ dataDir: dir, port: 0 });
    await first.close();
    chmodSync(join(dir, 'sandbox.db'), 0o644);
    chmodSync(dir, 0o755);
    const sb = await used(dir);
    try {
      expect(mode(dir)).toBe(0o700);
      for (const f of ['sandbox.db', 'sandbox.db-wal', 'sandbox.db-shm']) expect(mode(join(dir, f)), f).toBe(0o600);
    } finally {
      await sb.close();
    }
  });

  it('a symlink planted at the db path (or its WAL) is refused, and what it points at is untouched', async () => {
    for (const name of ['sandbox.db', 'sandbox.db-wal', 'sandbox.db-shm']) {
      const dir = scratch();
      const elsewhere = scratch();
      const target = join(elsewhere, 'victim');
      writeFileSync(target, 'precious', { mode: 0o644 });
      if (name !== 'sandbox.db') {
        const sb = await startSandbox({ dataDir: dir, port: 0 });
        await sb.close();
      }
      rmSync(join(dir, name), { force: true });
      symlinkSync(target, join(dir, name));
      await expect(startSandbox({ dataDir: dir, port: 0 }), name).rejects.toThrow(SandboxFileError);
      await expect(startSandbox({ dataDir: dir, port: 0 })).rejects.toThrow(/symbolic link|not a regular file/);
      expect(readFileSync(target, 'utf8')).toBe('precious');
      expect(mode(target)).toBe(0o644);
    }
  });

  it('a dangling symlink at the db path is not followed to create a file', async () => {
    const dir = scratch();
    const elsewhere = scratch();
    symlinkSync(join(elsewhere, 'created-through-link'), join(dir, 'sandbox.db'));
    await expect(startSandbox({ dataDir: dir, port: 0 })).rejects.toThrow(/symbolic link/);
    expect(existsSync(join(elsewhere, 'created-through-link'))).toBe(false);
  });

  it('a data dir that is a symlink, or not a directory, is refused', async () => {
    const root = scratch();
    const real = join(root, 'real');
    mkdirSync(real, { mode: 0o755 });
    symlinkSync(real, join(root, 'link'));
    await expect(startSandbox({ dataDir: join(root, 'link'), port: 0 })).rejects.toThrow(/is a symbolic link/);
    expect(mode(real)).toBe(0o755);
    expect(lstatSync(join(real)).isDirectory()).toBe(true);
    expect(existsSync(join(real, 'sandbox.db'))).toBe(false);
    writeFileSync(join(root, 'file'), '');
    await expect(startSandbox({ dataDir: join(root, 'file'), port: 0 })).rejects.toThrow();
  });
});
