// End to end: playlist groups from the terminal (replace, add, show), against a sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestSandbox } from '../helpers/sandbox';
import { mcatIn as mcat } from '../helpers/mcat-in';
import { hostileEnv, hostilePerTest, jsonOf } from '../helpers/hostile-server';

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;
let sb: Sandbox;
const run = (args: string[], opts: Parameters<typeof mcat>[1] = {}) => mcat(args, { sandboxDir: sb.dataDir, ...opts });

 

async function group(id: string): Promise<any> {
  const r = await run(['group', 'show', id, '-o', 'json']);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout).playlistGroup;
}

function expectUsage(r: { exitCode: number; stderr: string; stdout: string }, pattern: RegExp): void {
  expect(r.exitCode, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.split('\n').filter((l) => l && !l.startsWith('hint:'))).toHaveLength(1);
  expect(r.stderr).toMatch(/^mcat: /);
  expect(r.stderr).toMatch(pattern);
}

const hexId = (n: number) => n.toString(16).padStart(24, '0');

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb?.close();
});

describe('group show', () => {
  it('json is the API body; the table has the group header and its playlists', async () => {
    const [p1, p2] = sb.info.examples.playlistIds;
    const g = await group(sb.info.examples.groupId);
    expect(g.id).toBe(sb.info.examples.groupId);
    expect(g.name).toBe('Everyday Listening');
    expect(g.playlists.map((p: any) => p.id)).toEqual([p1, p2]);
    const t = await run(['group', 'show', sb.info.examples.groupId, '-o', 'table']);
    expect(t.exitCode).toBe(0);
    expect(t.stdout).toContain('Everyday Listening');
    expect(t.stdout).toContain('Morning Commute');
    expect(t.stdout).toContain('Late Night Focus');
    expect(t.stdout).not.toMatch(/\x1b\[/);
    const n = await run(['group', 'show', sb.info.examples.groupId, '-o', 'ndjson']);
    expect(n.stdout.trim().split('\n').map((l) => JSON.parse(l).id)).toEqual([p1, p2]);
  });

  it('the table in colour with FORCE_COLOR, plain with --no-color', async () => {
    const c = await run(['group', 'show', sb.info.examples.groupId, '-o', 'table'], { env: { FORCE_COLOR: '1' } });
    expect(c.exitCode).toBe(0);
    expect(c.stdout).toMatch(/\x1b\[/);
    const plain = await run(['group', 'show', sb.info.examples.groupId, '-o', 'table', '--no-color'], { env: { FORCE_COLOR: '1' } });
    expect(plain.stdout).not.toMatch(/\x1b\[/);
    expect(plain.stdout).toContain('Everyday Listening');
  });

  it('an unknown group is the API error (exit 1); a malformed id a usage error', async () => {
    const r = await run(['group', 'show', hexId(12345)]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/2001/);
    expectUsage(await run(['group', 'show', 'xyz']), /invalid group id/);
  });
});

describe('group replace and add', () => {
  it('replace sets exactly the name and playlists (creating the group); add is a set', async () => {
    const [p1, p2, p3] = sb.info.examples.playlistIds;
    const gid = hexId(0xabc1);
    const r = await run(['group', 'replace', gid, '--name', 'Mine', '--playlist', p1, '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).playlistGroup).toMatchObject({ id: gid, name: 'Mine', playlistCount: 1 });

    const a = await run(['group', 'add', gid, '--playlist', p2, p3, '-o', 'json']);
    expect(a.exitCode, a.stderr).toBe(0);
    expect(JSON.parse(a.stdout).playlistGroup.playlists.map((p: any) => p.id)).toEqual([p1, p2, p3]);
    // adding again changes nothing: each playlist is there once
    const again = await run(['group', 'add', gid, '--playlist', `${p3},${p1}`, '-o', 'json']);
    expect(again.exitCode).toBe(0);
    expect((await group(gid)).playlists.map((p: any) => p.id)).toEqual([p1, p2, p3]);

    const r2 = await run(['group', 'replace', gid, '--name', 'Renamed', '--playlist', p3, '--playlist', p2, '-o', 'json']);
    expect(r2.exitCode).toBe(0);
    const g = await group(gid);
    expect(g.name).toBe('Renamed');
    expect(g.playlists.map((p: any) => p.id)).toEqual([p3, p2]);
    // replace with no playlists empties it
    expect((await run(['group', 'replace', gid, '--name', 'Empty', '-o', 'json'])).exitCode).toBe(0);
    expect((await group(gid)).playlists ?? []).toEqual([]);
  });

  it('ids with no playlist are reported on stderr as ignored by the service', async () => {
    const [p1] = sb.info.examples.playlistIds;
    const gid = hexId(0xabc2);
    const ghost = hexId(0xdead);
    const r = await run(['group', 'replace', gid, '--name', 'Ghosts', '--playlist', p1, ghost, '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`1 id in group ${gid} names no playlist and is ignored by the service: ${ghost}`));
    const body = JSON.parse(r.stdout).playlistGroup;
    expect(body.playlistCount).toBe(1);
    expect(body.playlists).toContainEqual({ id: ghost });
    const t = await run(['group', 'show', gid, '-o', 'table']);
    expect(t.stderr).toContain(ghost);
    expect(t.stdout).toContain('(no playlist)');
  });

  it('checks ids and flags before sending', async () => {
    const gid = hexId(0xabc3);
    expectUsage(await run(['group', 'add', gid, '--playlist', 'nope']), /invalid playlist id 'nope'/);
    expectUsage(await run(['group', 'replace', gid, '--name', ' ', '--playlist', sb.info.examples.playlistIds[0]]), /--name/);
    expectUsage(await run(['group', 'replace', 'G1', '--name', 'x']), /invalid group id/);
    const noPl = await run(['group', 'add', gid]);
    expect(noPl.exitCode).toBe(2);
    expect(noPl.stderr).toMatch(/--playlist/);
    const noName = await run(['group', 'replace', gid]);
    expect(noName.exitCode).toBe(2);
    // nothing was created
    expect((await run(['group', 'show', gid])).exitCode).toBe(1);
  });

  it('--playlist - names the line a bad id is on, in every form it reads (not the first line holding the id as text)', async () => {
    const gid = hexId(0xabc4);
    const good = 'ad0ed2b4b45b8d81945103f4';
    const bad = good.slice(0, 23);
    const cases: [string, string][] = [
      [`${good}\n${bad}\n`, 'standard input:2'],
      [`# from ${good}\n\n${good}, 37fa8e8a9b70d252ee2b7e77 # two\n\n${bad}\n`, 'standard input:5'],
      [`${good},${bad}\n`, 'standard input:1'],
      [`{"id":"${good}"}\n\n{"id":"${bad}"}\n`, 'standard input:3'],
      [`id,name\n${good},"two\nlines"\n${bad},x\n`, 'standard input:4'],
      [`id\tname\n${good}\tx\n\n${bad}\ty\n`, 'standard input:4'],
      [`[\n{"id":"${good}"},\n{"id":"${bad}"}\n]\n`, 'standard input: item 2'],
    ];
    for (const [input, where] of cases) {
      for (const args of [['group', 'add', gid, '--playlist', '-'], ['group', 'replace', gid, '--name', 'G', '--playlist', '-']]) {
        const r = await run(args, { input });
        expectUsage(r, new RegExp(`^mcat: ${where}: invalid playlist id '${bad}'`));
      }
    }
  });

  it("someone else's group or user is refused (exit 4)", async () => {
    const other = sb.info.users.find((u: any) => u.userId !== sb.info.examples.lockerUser)!;
    const r = await run(['group', 'show', sb.info.examples.groupId], { env: { MCAT_TOKEN: other.token, MCAT_TOKEN_SECRET: other.tokenSecret } });
    expect(r.exitCode).toBe(4);
    const r2 = await run(['group', 'show', sb.info.examples.groupId, '--user', other.userId]);
    expect(r2.exitCode).toBe(4);
  });
});

describe('a group sent bare (the sandbox before 2026-11, api-decisions.md: the client reads both)', () => {
  const hostile = hostilePerTest();
  const gid = 'ca4cda5a7a2888a359ea1de8';
  const pid = 'ad0ed2b4b45b8d81945103f4';
  const bare = { id: gid, name: 'G', playlistCount: 1, _links: { self: { href: `/1.2/user/playlists/groups/${gid}` } }, playlists: [{ id: pid, name: 'P', trackCount: 2 }] };

  it('show, replace and add read it and print it enveloped, as playlist show prints a bare playlist', async () => {
    const s = await hostile();
    s.on(`/1.2/user/playlists/groups/${gid}`, jsonOf(() => bare));
    const env = hostileEnv(s, { MCAT_USER_ID: '10001' });
    for (const args of [['group', 'show', gid], ['group', 'replace', gid, '--name', 'G', '--playlist', pid], ['group', 'add', gid, '--playlist', pid]]) {
      const r = await mcat([...args, '-o', 'json'], { env });
      expect(r.exitCode, `${args[1]}: ${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout), args[1]).toEqual({ playlistGroup: bare });
    }
    expect(s.requests.map((r) => r.method)).toEqual(['POST', 'PUT', 'POST']);
    const t = await mcat(['group', 'show', gid, '-o', 'table'], { env });
    expect(t.exitCode, t.stderr).toBe(0);
    expect(t.stdout).toContain(gid);
    expect(t.stdout).toContain(pid);
    // -o xml: rendered in its element, the id an attribute, as an enveloped answer is
    const x = await mcat(['group', 'show', gid, '-o', 'xml'], { env });
    expect(x.exitCode, x.stderr).toBe(0);
    expect(x.stdout).toContain(`<playlistGroup id="${gid}">`);
    expect(x.stdout).not.toMatch(/^ {2}<id>/m);
  });

  it('a playlist sent bare (the real samples\' own no-envelope case): -o xml renders it in its <playlist> element', async () => {
    const s = await hostile();
    const bareText = readFileSync(join(import.meta.dirname, '../fixtures/real-api/playlists-id__test-authored-no-envelope__schema.json'), 'utf8');
    const id = JSON.parse(bareText).id as string;
    s.on(`/1.2/playlists/${id}`, (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(bareText));
    const x = await mcat(['playlist', 'show', id, '-o', 'xml'], { env: hostileEnv(s) });
    expect(x.exitCode, x.stderr).toBe(0);
    expect(x.stdout).toContain(`<playlist id="${id}">`);
    expect(x.stdout.split('\n')[1]).toBe('<response status="ok" version="1.2">');
  });
});
