// The launcher's compile cache (src/launcher/boot.ts): on Node 20 its own (V8's code cache, one file
// per command), written after a successful run, read by the next run of the same command, never in
// the way when it is missing, broken or unwritable; on Node 22.1 and later Node's own
// (module.enableCompileCache) in a folder of the same root. Either is used only when its folders are
// the user's alone. Under MCAT_TEST_NODE the tests of the other kind are skipped.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  chmodSync,
  chownSync,
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  utimesSync,
  lutimesSync,
  existsSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { execa } from 'execa';
import { cliNode, mcat, mcatEnv, nodeCompileCache, repoRoot } from '../helpers/mcat';
import { sandboxProfileEnv, startTestSandbox } from '../helpers/sandbox';

/** Every cache file below dir, as paths relative to dir. */
function cacheFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

describe('compile cache', () => {
  let sb: Awaited<ReturnType<typeof startTestSandbox>>;
  let env: Record<string, string>;
  let id: string;
  beforeAll(async () => {
    sb = await startTestSandbox();
    env = sandboxProfileEnv(sb);
    id = String(sb.info.examples.releaseIds[0]);
  });
  afterAll(async () => {
    await sb?.close();
  });
  const fresh = () => mkdtempSync(join(tmpdir(), 'mcat-cc-'));
  // the launcher's own cache: Node 20 (Node 22.1 and later have their own)
  const ownCache = it.skipIf(nodeCompileCache);

  ownCache('a successful run writes one private file for its command; the next run adds what it compiled, once; later runs read it without rewriting', async () => {
    const dir = fresh();
    const first = await mcat(['-o', 'json', 'release', 'batch', id], { env: { ...env, MCAT_CACHE_DIR: dir } });
    expect(first.exitCode).toBe(0);
    const files = cacheFiles(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^compile-v\d+\.\d+\.\d+-[a-z0-9]+-[0-9a-f]{8}\/[0-9a-f]{16}\/release-batch\.bin$/);
    const file = join(dir, files[0]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, files[0].split('/')[0])).mode & 0o777).toBe(0o700);
    const written = statSync(file);

    const second = await mcat(['-o', 'json', 'release', 'batch', id], { env: { ...env, MCAT_CACHE_DIR: dir } });
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    // the second run's code joins the first's: written again (a new file renamed into place)
    const before = statSync(file);
    expect(before.ino).not.toBe(written.ino);
    expect(cacheFiles(dir)).toEqual(files);

    for (const run of ['third', 'fourth']) {
      const r = await mcat(['-o', 'json', 'release', 'batch', id], { env: { ...env, MCAT_CACHE_DIR: dir } });
      expect(r.exitCode, run).toBe(0);
      expect(r.stdout).toBe(first.stdout);
      // every bundle the run loaded was in the cache and accepted by V8: nothing to write again
      const after = statSync(file);
      expect(after.ino, run).toBe(before.ino);
      expect(after.mtimeMs, run).toBe(before.mtimeMs);
    }
  });

  ownCache('each blob of a cache file starts at a multiple of 8 bytes (V8 copies cached data that does not before reading it)', async () => {
    const dir = fresh();
    expect((await mcat(['-o', 'json', 'release', 'batch', id], { env: { ...env, MCAT_CACHE_DIR: dir } })).exitCode).toBe(0);
    const buf = readFileSync(join(dir, cacheFiles(dir)[0]));
    const headerLength = buf.readUInt32LE(0);
    const header = JSON.parse(buf.subarray(4, 4 + headerLength).toString('utf8')) as { parts: [string, number][] };
    // catalogue.cjs, oauth.cjs, undici.cjs: lengths that are no multiple of 8 would do too
    expect(header.parts.length).toBeGreaterThanOrEqual(3);
    let at = 4 + headerLength;
    for (const [name, length] of header.parts) {
      expect(at % 8, name).toBe(0);
      at += length;
      // zeros up to the next multiple of 8
      while (at % 8) expect(buf[at++], name).toBe(0);
    }
    expect(at).toBe(buf.length);
  });

  ownCache("the second run's code is added to the first's: a create, then replaces, of playlist apply", async () => {
    const dir = fresh();
    const work = fresh();
    const run = async (n: number, edit: object) => {
      const edits = join(work, `edits${n}.ndjson`);
      writeFileSync(edits, JSON.stringify(edit) + '\n');
      const r = await mcat(['playlist', 'apply', edits, '--journal', join(work, `j${n}`)], { env: { ...env, MCAT_CACHE_DIR: dir } });
      expect(r.exitCode, r.stderr).toBe(0);
      const files = cacheFiles(dir);
      expect(files).toHaveLength(1);
      return statSync(join(dir, files[0]));
    };
    const playlistId = sb.info.examples.playlistIds[1];
    const first = await run(1, { op: 'create', name: 'cache seed' });
    const second = await run(2, { op: 'replace', playlistId, name: 'cached', tracks: [{ trackId: String(sb.info.examples.trackIds[0]) }] });
    expect(second.ino).not.toBe(first.ino);
    expect(second.size).toBeGreaterThan(first.size);
    const third = await run(3, { op: 'replace', playlistId, name: 'cached again', tracks: [] });
    expect([third.ino, third.mtimeMs]).toEqual([second.ino, second.mtimeMs]);
  });

  ownCache('a short playlist apply (which tunes V8 for its run) reads its cache without rewriting it (past the second run)', async () => {
    const dir = fresh();
    const work = fresh();
    const edits = join(work, 'edits.ndjson');
    writeFileSync(edits, JSON.stringify({ op: 'details', playlistId: sb.info.examples.playlistIds[0], description: 'cached' }) + '\n');
    const run = (n: number) => mcat(['playlist', 'apply', edits, '--journal', join(work, `j${n}`)], { env: { ...env, MCAT_CACHE_DIR: dir } });
    expect((await run(1)).exitCode).toBe(0);
    expect((await run(2)).exitCode).toBe(0);
    const files = cacheFiles(dir);
    expect(files).toHaveLength(1);
    const before = statSync(join(dir, files[0]));
    expect((await run(3)).exitCode).toBe(0);
    // the V8 flag the run set was taken back before the launcher decided: every bundle was accepted
    const after = statSync(join(dir, files[0]));
    expect(after.ino).toBe(before.ino);
    expect(after.mtimeMs).toBe(before.mtimeMs);
  });

  ownCache('a failed run and a help run write no cache for the command', async () => {
    const dir = fresh();
    expect((await mcat(['release', 'batch', '12x'], { env: { ...env, MCAT_CACHE_DIR: dir } })).exitCode).toBe(2);
    expect(cacheFiles(dir)).toEqual([]);
    expect((await mcat(['release', 'batch', '999999999', '-o', 'json'], { env: { ...env, MCAT_CACHE_DIR: dir } })).exitCode).toBe(3);
    expect(cacheFiles(dir)).toEqual([]);
    expect((await mcat(['release', 'batch', '--help'], { env: { ...env, MCAT_CACHE_DIR: dir } })).exitCode).toBe(0);
    // (a catalogue group's help runs dist/catalogue.cjs: a file of its own)
    expect(cacheFiles(dir).map((f) => f.split('/').pop())).toEqual(['help-catalogue.bin']);
    expect((await mcat(['playlist', 'list', '--help'], { env: { ...env, MCAT_CACHE_DIR: dir } })).exitCode).toBe(0);
    expect(cacheFiles(dir).map((f) => f.split('/').pop())).toEqual(['help-catalogue.bin', 'help.bin']);
  });

  ownCache("mcat --help (dist/help.cjs, compiled faster than a cache is read) neither reads nor writes one; a group's help keeps its own", async () => {
    const dir = fresh();
    const run = async (args: string[]) => expect((await mcat(args, { env: { ...env, MCAT_CACHE_DIR: dir } })).exitCode).toBe(0);
    await run(['--help']);
    await run(['-h']);
    await run([]);
    expect(cacheFiles(dir)).toEqual([]);
    // (the second run adds what it compiled to the first's: the cache is rewritten once)
    await run(['playlist', '--help']);
    await run(['locker', '--help']);
    // a catalogue group's help runs dist/catalogue.cjs: its file is its own, neither replaces the other
    await run(['release', '--help']);
    await run(['track', '--help']);
    const files = cacheFiles(dir);
    expect(files.map((f) => f.split('/').pop())).toEqual(['help-catalogue.bin', 'help.bin']);
    const before = files.map((f) => statSync(join(dir, f)));
    await run(['--help']);
    await run(['release', 'batch', '--help']);
    await run(['playlist', 'list', '--help']);
    expect(cacheFiles(dir)).toEqual(files);
    const after = files.map((f) => statSync(join(dir, f)));
    expect(after.map((s) => [s.ino, s.mtimeMs])).toEqual(before.map((s) => [s.ino, s.mtimeMs]));
  });

  ownCache('a broken cache file is ignored and replaced', async () => {
    const dir = fresh();
    const good = await mcat(['release', 'batch', id, '-o', 'json'], { env: { ...env, MCAT_CACHE_DIR: dir } });
    const file = join(dir, cacheFiles(dir)[0]);
    for (const garbage of [Buffer.from('not a cache'), Buffer.alloc(0), Buffer.concat([readFileSync(file).subarray(0, 200)])]) {
      writeFileSync(file, garbage);
      const r = await mcat(['release', 'batch', id, '-o', 'json'], { env: { ...env, MCAT_CACHE_DIR: dir } });
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(good.stdout);
      expect(statSync(file).size).toBeGreaterThan(10_000);
    }
  });

  ownCache('a cache corrupted inside its data is refused by V8 (its checksum; unchecked, V8 would abort), and rewritten', async () => {
    const dir = fresh();
    const good = await mcat(['release', 'batch', id, '-o', 'json'], { env: { ...env, MCAT_CACHE_DIR: dir } });
    const file = join(dir, cacheFiles(dir)[0]);
    const original = readFileSync(file);
    for (const at of [0.1, 0.5, 0.9]) {
      const bad = Buffer.from(original);
      const from = Math.floor(bad.length * at);
      for (let i = from; i < from + 64; i++) bad[i] ^= 0xa5;
      writeFileSync(file, bad);
      const r = await mcat(['release', 'batch', id, '-o', 'json'], { env: { ...env, MCAT_CACHE_DIR: dir } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(good.stdout);
      expect(readFileSync(file).equals(bad)).toBe(false);
    }
  });

  ownCache('a bundle with a character past ASCII (the build makes none) is read as UTF-8, compiled and cached alike', async () => {
    const copy = fresh();
    cpSync(join(repoRoot, 'bin'), join(copy, 'bin'), { recursive: true });
    cpSync(join(repoRoot, 'dist'), join(copy, 'dist'), { recursive: true });
    cpSync(join(repoRoot, 'package.json'), join(copy, 'package.json'));
    // oauth-1.0a's bundle, with a string that would come out wrong if read as Latin-1
    const oauth = join(copy, 'dist/oauth.cjs');
    writeFileSync(oauth, `${readFileSync(oauth, 'utf8')}\nif ('\u00e9\u00df\u20ac'.length !== 3) throw new Error('not read as UTF-8');\n`);
    expect(readFileSync(oauth).some((b) => b > 0x7f)).toBe(true);
    const dir = fresh();
    const good = await mcat(['release', 'batch', id, '-o', 'json'], { env: { ...env, MCAT_CACHE_DIR: fresh() } });
    for (const run of ['compiles and writes the cache', 'reads it']) {
      const r = await execa(cliNode, [join(copy, 'bin/mcat'), 'release', 'batch', id, '-o', 'json'], { reject: false, env: { ...mcatEnv(), ...env, MCAT_CACHE_DIR: dir } });
      expect(r.exitCode, `${run}: ${r.stderr}`).toBe(0);
      expect(r.stdout.trimEnd(), run).toBe(good.stdout.trimEnd());
      expect(cacheFiles(dir), run).toHaveLength(1);
    }
  });

  it('an unwritable cache location and MCAT_NO_COMPILE_CACHE change nothing but speed', async () => {
    const base = fresh();
    const notADir = join(base, 'file');
    writeFileSync(notADir, 'x');
    const r = await mcat(['release', 'batch', id, '-o', 'json'], { env: { ...env, MCAT_CACHE_DIR: notADir } });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    const dir = fresh();
    const off = await mcat(['release', 'batch', id, '-o', 'json'], { env: { ...env, MCAT_CACHE_DIR: dir, MCAT_NO_COMPILE_CACHE: '1' } });
    expect(off.exitCode).toBe(0);
    expect(off.stdout).toBe(r.stdout);
    expect(cacheFiles(dir)).toEqual([]);
  });

  ownCache('writing drops the caches of other builds', async () => {
    const dir = fresh();
    await mcat(['release', 'batch', id, '-o', 'json'], { env: { ...env, MCAT_CACHE_DIR: dir } });
    const [versionDir, buildId] = cacheFiles(dir)[0].split('/');
    const stale = join(dir, versionDir, '0123456789abcdef');
    mkdirSync(stale);
    writeFileSync(join(stale, 'release-batch.bin'), 'old');
    await mcat(['artist', 'releases', String(sb.info.examples.artistWithManyReleases), '-o', 'json'], { env: { ...env, MCAT_CACHE_DIR: dir } });
    expect(cacheFiles(dir)).toEqual([`${versionDir}/${buildId}/artist-releases.bin`, `${versionDir}/${buildId}/release-batch.bin`]);
  });

  ownCache('writing drops the folders of other Nodes not written for 30 days (never through a link); recent ones stay', async () => {
    const dir = fresh();
    const old = (Date.now() - 31 * 24 * 3600 * 1000) / 1000;
    const stale = join(dir, 'compile-v0.0.1-x64-00000000');
    const recent = join(dir, 'compile-v0.0.2-x64-00000000');
    const elsewhere = fresh();
    for (const d of [join(stale, '0123456789abcdef'), join(recent, '0123456789abcdef'), elsewhere]) mkdirSync(d, { recursive: true });
    writeFileSync(join(stale, '0123456789abcdef', 'help.bin'), 'old');
    writeFileSync(join(elsewhere, 'keep'), 'x');
    symlinkSync(elsewhere, join(dir, 'compile-v0.0.3-x64-00000000'));
    utimesSync(stale, old, old);
    lutimesSync(join(dir, 'compile-v0.0.3-x64-00000000'), old, old);
    utimesSync(elsewhere, old, old);
    const r = await mcat(['release', 'batch', id, '-o', 'json'], { env: { ...env, MCAT_CACHE_DIR: dir } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(join(recent, '0123456789abcdef'))).toBe(true);
    expect(readFileSync(join(elsewhere, 'keep'), 'utf8')).toBe('x');
    expect(cacheFiles(dir).some((f) => f.endsWith('/release-batch.bin'))).toBe(true);
  });

  it('defaults to $XDG_CACHE_HOME/mcat, else ~/.cache/mcat', async () => {
    const home = fresh();
    await mcat(['release', 'batch', id, '-o', 'json'], { home, env: { ...env, MCAT_CACHE_DIR: undefined as unknown as string, XDG_CACHE_HOME: undefined as unknown as string } });
    expect(cacheFiles(join(home, '.cache/mcat')).length).toBeGreaterThan(0);
    const xdg = fresh();
    await mcat(['release', 'batch', id, '-o', 'json'], { home, env: { ...env, MCAT_CACHE_DIR: undefined as unknown as string, XDG_CACHE_HOME: xdg } });
    expect(cacheFiles(join(xdg, 'mcat')).length).toBeGreaterThan(0);
  });

  it.skipIf(!nodeCompileCache)("Node 22.1+: Node's own compile cache in <root>/node, private; the next run reads it without rewriting", async () => {
    const dir = fresh();
    const first = await mcat(['release', 'batch', id, '-o', 'json'], { env: { ...env, MCAT_CACHE_DIR: dir } });
    expect(first.exitCode, first.stderr).toBe(0);
    const files = cacheFiles(dir);
    // one entry per bundle the run loaded (mcat, undici, oauth: zod only for a body that does not fit), in Node's folder for this Node
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const f of files) expect(f).toMatch(/^node\/v\d+\.\d+\.\d+-[^/]+\/[0-9a-f]+$/);
    for (const d of [join(dir, 'node'), join(dir, dirname(files[0]))]) expect(statSync(d).mode & 0o777).toBe(0o700);
    const before = files.map((f) => statSync(join(dir, f)).mtimeMs);
    const second = await mcat(['release', 'batch', id, '-o', 'json'], { env: { ...env, MCAT_CACHE_DIR: dir } });
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(cacheFiles(dir)).toEqual(files);
    expect(files.map((f) => statSync(join(dir, f)).mtimeMs)).toEqual(before);
  });
});

// A compiled blob is code: V8 accepts one compiled from another source of the same length (its
// checksum only catches accidents). The planter below compiles a same-length stand-in for
// dist/mcat.cjs that writes a marker file and prints nothing, exactly as the launcher would have
// cached it (Node 20: the launcher's own format). Loaded from a cache someone else could write, it
// would run as the user. Node 22.1+'s own cache is as open to this; there the same folder checks
// are tested by what a run writes.
const PLANTER = String.raw`
const fs = require('node:fs'), vm = require('node:vm'), v8 = require('node:v8');
const [dist, out, mark] = process.argv.slice(2);
v8.setFlagsFromString('--verify-snapshot-checksum'); // as the launcher does for an offline command
const filename = dist + '/mcat.cjs';
const genuine = fs.readFileSync(filename, 'utf8');
let evil = 'require("node:fs").writeFileSync(' + JSON.stringify(mark) + ', "planted"); module.exports = { runCli: async () => 0 };';
evil += ' '.repeat(genuine.length - evil.length);
const script = new vm.Script('(function (exports, require, module, __filename, __dirname) { ' + evil + '\n})', {
  filename,
  importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
const mod = { exports: {} };
script.runInThisContext().call(mod.exports, mod.exports, require, mod, filename, dist);
mod.exports.runCli(); // compiled now, so it is in the cached data (else V8 would compile it from the real source)
fs.rmSync(mark);
const data = script.createCachedData();
// (the launcher's format: each blob at a multiple of 8 bytes, the header padded with spaces)
const json = Buffer.from(JSON.stringify({ runs: 2, parts: [['mcat.cjs', data.length]] }));
const header = Buffer.concat([json, Buffer.alloc((8 - ((4 + json.length) % 8)) % 8, ' ')]);
const length = Buffer.alloc(4);
length.writeUInt32LE(header.length);
fs.writeFileSync(out, Buffer.concat([length, header, data, Buffer.alloc((8 - (data.length % 8)) % 8)]));
`;

const NOBODY = 65534;

/** Every entry below dir (links not followed): what a run may not have changed. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .sort()
    .map((rel) => {
      const st = lstatSync(join(dir, rel));
      return `${rel} ${st.mode.toString(8)} ${st.uid} ${st.size} ${st.mtimeMs} ${st.ino}`;
    });
}

describe('a compile cache someone else could have written is neither read nor written', () => {
  const args = ['profile', 'list', '-o', 'json'];
  let reference: string;
  let planted: Buffer;
  /** the blob's path below a work folder: cache/compile-…/<build id>/profile-list.bin */
  let rel: string;
  let mark: string;
  let work: string;
  /** the parts of the cache in this work folder (Node 22.1+: root and root/node only) */
  let parts: { root: string; dir: string; buildDir: string; file: string };
  const FOLDERS: (keyof typeof parts)[] = nodeCompileCache ? ['root', 'dir'] : ['root', 'dir', 'buildDir'];
  // the launcher's own cache (Node 20): a planted blob
  const ownCache = it.skipIf(nodeCompileCache);

  beforeAll(async () => {
    const off = await mcat(args, { env: { MCAT_NO_COMPILE_CACHE: '1' } });
    expect(off.exitCode).toBe(0);
    reference = off.stdout;
    if (nodeCompileCache) return;
    const template = mkdtempSync(join(tmpdir(), 'mcat-cc-planted-'));
    expect((await mcat(args, { env: { MCAT_CACHE_DIR: join(template, 'cache') } })).exitCode).toBe(0);
    rel = join('cache', cacheFiles(join(template, 'cache'))[0]);
    mark = join(mkdtempSync(join(tmpdir(), 'mcat-cc-mark-')), 'planted');
    const planter = join(template, 'planter.cjs');
    writeFileSync(planter, PLANTER);
    await execa(cliNode, [planter, join(repoRoot, 'dist'), join(template, rel), mark], { env: mcatEnv() as Record<string, string> });
    planted = readFileSync(join(template, rel));
  });

  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'mcat-cc-work-'));
    if (nodeCompileCache) {
      // Node's folder, as a run leaves it: <root>/node (0700) with Node's own folder inside
      const root = join(work, 'cache');
      const dir = join(root, 'node');
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      parts = { root, dir, buildDir: dir, file: '' };
      return;
    }
    rmSync(mark, { force: true });
    const file = join(work, rel);
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, planted, { mode: 0o600 });
    const buildDir = dirname(file);
    const dir = dirname(buildDir);
    parts = { root: dirname(dir), dir, buildDir, file };
  });

  const run = () => mcat(args, { env: { MCAT_CACHE_DIR: parts.root } });
  /** Whether the run used the cache: the planted blob ran (Node 20), or Node wrote its cache. */
  const used = () => (nodeCompileCache ? cacheFiles(parts.dir).length > 0 : existsSync(mark));

  ownCache("(why) a planted blob in a cache of the user's own is run: V8 accepts it", async () => {
    const r = await run();
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
    expect(readFileSync(mark, 'utf8')).toBe('planted');
  });

  it.skipIf(!nodeCompileCache)("Node 22.1+: a folder of the user's own is used", async () => {
    const r = await run();
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(reference);
    expect(used()).toBe(true);
  });

  it('a cache root in a sticky shared folder (like /tmp) is used when the root is ours and 0700', async () => {
    chmodSync(work, 0o1777);
    await run();
    expect(used()).toBe(true);
  });

  const cases: [string, () => void][] = [
    ['the parent of the root is writable by others (not sticky)', () => chmodSync(work, 0o777)],
    ['the parent of the root belongs to another user', () => chownSync(work, NOBODY, NOBODY)],
    ['the root is not 0700 in a sticky shared parent', () => (chmodSync(work, 0o1777), chmodSync(parts.root, 0o755))],
    ...FOLDERS.flatMap((p): [string, () => void][] => [
      [`the ${p} folder belongs to another user`, () => chownSync(parts[p], NOBODY, NOBODY)],
      [`the ${p} folder is writable by its group`, () => chmodSync(parts[p], 0o770)],
      [`the ${p} folder is writable by others`, () => chmodSync(parts[p], 0o703)],
      [
        `the ${p} folder is a symbolic link (to a folder of ours)`,
        () => {
          renameSync(parts[p], join(work, `real-${p}`));
          symlinkSync(join(work, `real-${p}`), parts[p]);
        },
      ],
    ]),
    // Node's own files below it are not checked one by one: no one else may even enter it
    ...(nodeCompileCache ? ([["Node's folder (<root>/node) is open to others for reading", () => chmodSync(parts.dir, 0o755)]] as [string, () => void][]) : []),
  ];

  it.each(cases)('%s: the run compiles from source and writes nothing there', async (_, spoil) => {
    spoil();
    const before = tree(work);
    const r = await run();
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(reference);
    if (!nodeCompileCache) expect(existsSync(mark)).toBe(false);
    expect(tree(work)).toEqual(before);
  });

  const blobCases: [string, () => void][] = [
    ['belongs to another user', () => chownSync(parts.file, NOBODY, NOBODY)],
    ['is writable by its group', () => chmodSync(parts.file, 0o620)],
    ['is writable by others', () => chmodSync(parts.file, 0o602)],
    [
      'is a symbolic link (to a file of ours)',
      () => {
        renameSync(parts.file, join(work, 'real.bin'));
        symlinkSync(join(work, 'real.bin'), parts.file);
      },
    ],
  ];

  it.skipIf(nodeCompileCache).each(blobCases)('a blob that %s is not loaded; a private file of ours replaces it (never written through)', async (_, spoil) => {
    spoil();
    const r = await run();
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(reference);
    expect(existsSync(mark)).toBe(false);
    const st = lstatSync(parts.file);
    expect(st.isFile()).toBe(true);
    expect(st.uid).toBe(process.getuid!());
    expect(st.mode & 0o777).toBe(0o600);
    expect(readFileSync(parts.file).equals(planted)).toBe(false);
    if (existsSync(join(work, 'real.bin'))) expect(readFileSync(join(work, 'real.bin')).equals(planted)).toBe(true);
  });

  it('folders it creates are 0700 and its files 0600, whatever the umask', async () => {
    const root = join(work, 'new', 'cache');
    const r = await execa('sh', ['-c', `umask 000; exec "${cliNode}" "$0" "$@"`, join(repoRoot, 'bin/mcat'), ...args], {
      env: mcatEnv({ env: { MCAT_CACHE_DIR: root } }) as Record<string, string>,
      reject: false,
    });
    expect(r.exitCode).toBe(0);
    const entries = readdirSync(join(work, 'new'), { recursive: true }).map(String);
    expect(cacheFiles(root).length).toBeGreaterThan(0);
    for (const e of ['', ...entries]) {
      const st = lstatSync(join(work, 'new', e));
      expect(st.mode & 0o777, e).toBe(st.isDirectory() ? 0o700 : 0o600);
    }
  });

  it('MCAT_TRACE_LOADS does not write through a symbolic link', async () => {
    const target = join(work, 'target');
    writeFileSync(target, 'untouched');
    symlinkSync(target, join(work, 'trace'));
    const r = await mcat(args, { env: { MCAT_TRACE_LOADS: join(work, 'trace') } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(reference);
    expect(readFileSync(target, 'utf8')).toBe('untouched');
  });
});
