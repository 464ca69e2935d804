// Start-up stays lean: --help and --version load none of the heavy modules, and a read loads only
// what it uses. The launcher names every bundle and package it loads in MCAT_TRACE_LOADS; the
// build's metafile (dist/meta.json) tells which packages each bundle holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { binPath, cliNode, mcat, mcatEnv, repoRoot, sqliteInCli } from '../helpers/mcat';
import { sandboxProfileEnv, startTestSandbox } from '../helpers/sandbox';
import { mcatIn } from '../helpers/mcat-in';
import { hasScript, mcatLine, pty } from '../helpers/pty';
import { formatHelp } from '../../src/cli/help-format';
import { topHelpPage } from '../../src/cli/top-help';
import { hostileEnv, hostilePerTest, json } from '../helpers/hostile-server';

const hostile = hostilePerTest();

const HEAVY = ['undici', 'zod', 'conf', 'fast-xml-parser', 'better-sqlite3', 'chalk', 'oauth-1.0a', 'jq-wasm'];

type Meta = { outputs: Record<string, { inputs: Record<string, unknown> }> };

function packagesIn(bundle: string, meta: Meta): string[] {
  const out = meta.outputs[bundle];
  if (!out) throw new Error(`dist/meta.json names no bundle ${bundle}`);
  const pkgs = new Set<string>();
  for (const input of Object.keys(out.inputs)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    if (m) pkgs.add(m[1]);
  }
  return [...pkgs];
}

async function loadedPackages(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ pkgs: string[]; bundles: string[]; stdout: string; stderr: string; exitCode: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'mcat-loads-'));
  const log = join(dir, 'loads.txt');
  const r = await execa(cliNode, [binPath, ...args], {
    reject: false,
    env: { ...mcatEnv(), ...env, MCAT_TRACE_LOADS: log },
  });
  const meta = JSON.parse(readFileSync(join(repoRoot, 'dist/meta.json'), 'utf8')) as Meta;
  let lines: string[] = [];
  try {
    lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  } catch {
    // nothing loaded beyond the launcher
  }
  const pkgs = new Set<string>();
  const bundles: string[] = [];
  for (const u of lines) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u);
    if (m) {
      pkgs.add(m[1]);
      continue;
    }
    const i = u.indexOf('/dist/');
    if (i < 0) throw new Error(`unexpected trace line ${u}`);
    const bundle = 'dist/' + u.slice(i + 6);
    bundles.push(bundle);
    for (const p of packagesIn(bundle, meta)) pkgs.add(p);
  }
  return { pkgs: [...pkgs], bundles, stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode ?? -1 };
}


/** A preload (written in `dir`) that lists, in $AFTER_FLAGS_LOG, the built-ins loaded once the launcher has set a V8 flag. */
function afterFlagsHook(dir: string): string {
  const hook = join(dir, 'after-flags.cjs');
  writeFileSync(
    hook,
    `const v8 = require('node:v8');
const set = v8.setFlagsFromString;
let from;
v8.setFlagsFromString = function (flags) { from ??= process.moduleLoadList.length; return set.call(this, flags); };
process.on('exit', () => require('node:fs').writeFileSync(process.env.AFTER_FLAGS_LOG, from === undefined ? 'no flags' :
  process.moduleLoadList.slice(from).filter((m) => m.startsWith('NativeModule ')).join('\\n')));
`,
  );
  return hook;
}
describe('the bundles', () => {
  it('hold each module once (a class in two bundles would break instanceof), but the launcher\'s pure argv reader and the data it reads', () => {
    const meta = JSON.parse(readFileSync(join(repoRoot, 'dist/meta.json'), 'utf8')) as Meta;
    const where = new Map<string, string[]>();
    for (const [bundle, out] of Object.entries(meta.outputs)) {
      for (const input of Object.keys(out.inputs)) where.set(input, [...(where.get(input) ?? []), bundle]);
    }
    // dist/help.cjs (the top-level help, from the same definitions) is never loaded in a run with mcat.cjs (below),
    // nor dist/catalogue.cjs (the CLI with the catalogue's commands only: a run loads it or mcat.cjs, below);
    // dist/locker-worker.cjs runs in worker threads, each its own realm, and only plain data crosses to mcat.cjs's
    const twice = [...where]
      .map(([input, bundles]) => [input, bundles.filter((b) => b !== 'dist/help.cjs' && b !== 'dist/catalogue.cjs' && b !== 'dist/locker-worker.cjs')] as const)
      .filter(([, bundles]) => bundles.length > 1)
      .map(([input, bundles]) => `${input}: ${bundles.join(', ')}`);
    // argv.ts knows the value-taking global options from global-options.ts (plain data, no class)
    // and the stand-in that loads node:crypto at its first call (scripts/build.mjs: a Proxy, no class)
    expect(twice.sort()).toEqual(['mcat-lazy:crypto: dist/undici.cjs, dist/conf.cjs', 'src/cli/argv.ts: dist/mcat.cjs, dist/boot.cjs', 'src/cli/global-options.ts: dist/mcat.cjs, dist/boot.cjs']);
  });

  it('help.cjs holds the top-level help, the groups\' definitions and the help\'s layout: no package, no command', () => {
    const meta = JSON.parse(readFileSync(join(repoRoot, 'dist/meta.json'), 'utf8')) as Meta;
    const help = Object.keys(meta.outputs['dist/help.cjs'].inputs).filter((i) => !i.startsWith('mcat-help-absent:'));
    // the commands the groups name are one module that throws, if ever asked for
    expect(Object.keys(meta.outputs['dist/help.cjs'].inputs).filter((i) => i.startsWith('mcat-help-absent:'))).toEqual(['mcat-help-absent:command']);
    for (const f of ['src/cli/top-help.ts', 'src/cli/groups.ts', 'src/cli/help-format.ts', 'src/cli/commands/locker/index.ts']) expect(help).toContain(f);
    // commander is not in it: the page is rendered from the definitions
    expect(packagesIn('dist/help.cjs', meta)).toEqual([]);
    expect(help.filter((i) => i.startsWith('src/cli/commands/') && !i.endsWith('/index.ts'))).toEqual([]);
    expect(help).not.toContain('src/cli/main.ts');
    expect(help).not.toContain('src/cli/registry.ts');
  });

  it("catalogue.cjs is the CLI with the catalogue groups' commands and no other group's command", () => {
    const meta = JSON.parse(readFileSync(join(repoRoot, 'dist/meta.json'), 'utf8')) as Meta;
    const inputs = Object.keys(meta.outputs['dist/catalogue.cjs'].inputs);
    // the other groups' commands are one module that throws, if ever asked for
    expect(inputs.filter((i) => i.startsWith('mcat-catalogue-absent:'))).toEqual(['mcat-catalogue-absent:command']);
    const commands = (list: string[]) => list.filter((i) => i.startsWith('src/cli/commands/') && !i.endsWith('/index.ts'));
    const whole = commands(Object.keys(meta.outputs['dist/mcat.cjs'].inputs));
    const group = (i: string) => i.split('/')[3];
    expect(commands(inputs).sort()).toEqual(whole.filter((i) => ['release', 'artist', 'track'].includes(group(i))).sort());
    expect(commands(inputs).map(group)).toEqual(expect.arrayContaining(['release', 'artist', 'track']));
    // the rest of the CLI as in mcat.cjs: main, the registry, every group's definition, commander
    for (const f of ['src/cli/main.ts', 'src/cli/registry.ts', 'src/cli/groups.ts', 'src/cli/commands/locker/index.ts', 'src/client/http.ts']) expect(inputs).toContain(f);
    expect(packagesIn('dist/catalogue.cjs', meta)).toEqual(packagesIn('dist/mcat.cjs', meta));
  });

  it('are ASCII only (one other character makes V8 keep the whole bundle as UTF-16: twice the bytes at every start)', () => {
    const meta = JSON.parse(readFileSync(join(repoRoot, 'dist/meta.json'), 'utf8')) as Meta;
    for (const b of Object.keys(meta.outputs).filter((o) => o.endsWith('.cjs'))) {
      const text = readFileSync(join(repoRoot, b), 'utf8');
      const at = text.search(/[^\x00-\x7f]/);
      expect(at, `${b} has ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 40))}`).toBe(-1);
    }
  });

  it("undici's bundle has short local names (its code cache, read by every run that calls the API, is a third smaller)", () => {
    const text = readFileSync(join(repoRoot, 'dist/undici.cjs'), 'utf8');
    // module-level names of undici's HTTP/1 client
    for (const name of ['currentBufferRef', 'llhttpInstance', 'getDefaultNodeMaxHeaderSize']) expect(text).not.toContain(name);
    expect(text.length).toBeLessThan(180_000);
  });

  it('have no import() left (it would load a bundle past the launcher, a second copy without the cache)', () => {
    const meta = JSON.parse(readFileSync(join(repoRoot, 'dist/meta.json'), 'utf8')) as Meta;
    const bundles = Object.keys(meta.outputs);
    expect(bundles.length).toBeGreaterThanOrEqual(9);
    for (const b of bundles) {
      const text = readFileSync(join(repoRoot, b), 'utf8');
      expect(/\bimport\(/.test(text), `${b} has an import() call`).toBe(false);
    }
  });
});

describe('start-up', () => {
  let sb: Awaited<ReturnType<typeof startTestSandbox>>;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  afterAll(async () => {
    await sb?.close();
  });

  it('mcat --version prints the version and loads no bundle at all', async () => {
    const r = await loadedPackages(['--version']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version);
    expect(r.bundles).toEqual([]);
    expect(r.pkgs).toEqual([]);
  });

  it('mcat --help, a group\'s --help and a subcommand --help load no heavy module', async () => {
    for (const args of [['--help'], ['release', 'batch', '--help'], ['locker', '--help'], ['playlist', '--help'], ['group', '--help'], ['playlist', 'replace', '--help']]) {
      const r = await loadedPackages(args);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toMatch(/Usage: mcat/);
      for (const h of HEAVY) expect(r.pkgs, `${args.join(' ')} loaded ${h}`).not.toContain(h);
      // the top-level help is rendered from the registry's definitions, without commander
      if (args.length === 1) expect(r.pkgs).toEqual([]);
      else expect(r.pkgs).toContain('commander');
      expect(r.bundles).toEqual([args.length === 1 ? 'dist/help.cjs' : args[0] === 'release' ? 'dist/catalogue.cjs' : 'dist/mcat.cjs']);
    }
  });

  it('mcat --help, -h, help and mcat alone run dist/help.cjs alone, and print what the whole CLI prints', async () => {
    const whole = await mcat(['release', '--help']);
    expect(whole.exitCode).toBe(0);
    let top: string | undefined;
    for (const args of [['--help'], ['-h'], ['help'], [], ['-o', 'json', '--help'], ['-q']]) {
      const r = await loadedPackages(args);
      expect(r.exitCode, args.join(' ')).toBe(0);
      expect(r.bundles, args.join(' ')).toEqual(['dist/help.cjs']);
      expect(r.stderr).toBe('');
      top ??= r.stdout;
      expect(r.stdout).toBe(top);
    }
    // the text commander renders in-process (and mcat.cjs, for the lines it runs: help of a misspelt
    // group, an option commander must read)
    expect(`${top}\n`).toBe((await mcatIn(['--help'])).stdout); // (execa drops the last newline)
    for (const args of [['--help', 'relase'], ['-qh'], ['--bogus', '--help']]) {
      const r = await loadedPackages(args);
      expect(r.bundles, args.join(' ')).toEqual(['dist/mcat.cjs']);
      expect(r.stdout, args.join(' ')).toBe(top);
    }
  });

  it('a usage error loads no network module', async () => {
    const r = await loadedPackages(['release', 'batch', 'x']);
    expect(r.exitCode).toBe(2);
    for (const h of ['undici', 'zod', 'better-sqlite3']) expect(r.pkgs).not.toContain(h);
  });

  it('a catalogue read as JSON loads the client and nothing of tables, XML, conf, the sandbox or zod (the build checks its body)', async () => {
    const id = String(sb.info.examples.releaseIds[0]);
    const r = await loadedPackages(['release', 'batch', id, '-o', 'json'], sandboxProfileEnv(sb));
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).items.releases[0].id).toBe(Number(id));
    for (const p of ['commander', 'undici', 'oauth-1.0a']) expect(r.pkgs).toContain(p);
    for (const p of ['zod', 'conf', 'chalk', 'fast-xml-parser', 'better-sqlite3', 'jq-wasm']) expect(r.pkgs).not.toContain(p);
    expect(r.bundles).not.toContain('dist/sandbox.cjs');
    expect(r.bundles).not.toContain('dist/jq.cjs');
    // the CLI with the catalogue's commands only, not the whole of it
    expect(r.bundles).toContain('dist/catalogue.cjs');
    expect(r.bundles).not.toContain('dist/mcat.cjs');
  });

  it('a catalogue body that does not fit the schema loads zod to say what: one line, exit 1, nothing on stdout', async () => {
    const s = await hostile();
    s.on('/1.2/release/details/batch', json({ status: 'ok', version: '1.2', items: { releases: [{ id: 100001, title: 7 }], errors: [] } }));
    const r = await loadedPackages(['release', 'batch', '100001', '-o', 'json'], hostileEnv(s));
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('mcat: unreadable response: release details: items.releases.0.title: Invalid input: expected string, received number (HTTP 200)');
    expect(r.pkgs).toContain('zod');
    // what the source says, where zod checks every body
    expect((await mcatIn(['release', 'batch', '100001', '-o', 'json'], { env: hostileEnv(s) })).stderr).toBe(`${r.stderr}\n`);
    // and a body that fits only once transformed (ids as strings, the real service's Itemid) is read without it
    s.on('/1.2/release/details/batch', json({ status: 'ok', version: '1.2', items: { releases: [{ id: '100001', barcode: 5060147126106 }], errors: [{ Itemid: '9', code: '2001' }] } }));
    const t = await loadedPackages(['release', 'batch', '100001', '9', '-o', 'json'], hostileEnv(s));
    expect(t.exitCode, t.stderr).toBe(3);
    expect(JSON.parse(t.stdout).items).toEqual({ releases: [{ id: 100001, barcode: '5060147126106' }], errors: [{ Itemid: '9', code: 2001, itemId: 9 }] });
    expect(t.pkgs).not.toContain('zod');
  });

  it("undici's parser without SIMD is a bundle of its own, loaded only where SIMD is off", async () => {
    const meta = JSON.parse(readFileSync(join(repoRoot, 'dist/meta.json'), 'utf8')) as Meta;
    const holds = (bundle: string) => Object.keys(meta.outputs[bundle].inputs).filter((i) => i.endsWith('llhttp/llhttp-wasm.js'));
    expect(holds('dist/undici.cjs')).toEqual([]);
    expect(holds('dist/llhttp-wasm.cjs')).toHaveLength(1);
    const id = String(sb.info.examples.releaseIds[0]);
    const simd = await loadedPackages(['release', 'batch', id, '-o', 'json'], sandboxProfileEnv(sb));
    expect(simd.exitCode).toBe(0);
    expect(simd.bundles).not.toContain('dist/llhttp-wasm.cjs');
    // undici's own switch: its parser without SIMD, from the bundle of its own
    const plain = await loadedPackages(['release', 'batch', id, '-o', 'json'], { ...sandboxProfileEnv(sb), UNDICI_NO_WASM_SIMD: '1' });
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.stdout).toBe(simd.stdout);
    expect(plain.bundles).toContain('dist/llhttp-wasm.cjs');
  });

  it("undici's parser with SIMD is read from dist/llhttp_simd.wasm (undici's own bytes), not from 72 kB of base64 in undici.cjs; without the file, undici falls back", async () => {
    const meta = JSON.parse(readFileSync(join(repoRoot, 'dist/meta.json'), 'utf8')) as Meta;
    expect(Object.keys(meta.outputs['dist/undici.cjs'].inputs).filter((i) => i.endsWith('llhttp/llhttp_simd-wasm.js'))).toEqual([]);
    const undiciBytes = createRequire(join(repoRoot, 'package.json'))('undici/lib/llhttp/llhttp_simd-wasm.js') as Buffer;
    expect(readFileSync(join(repoRoot, 'dist/llhttp_simd.wasm')).equals(undiciBytes)).toBe(true);
    // a copy of mcat without the file: the launcher's early compile fails quietly, undici takes its parser without SIMD
    const copy = mkdtempSync(join(tmpdir(), 'mcat-no-wasm-'));
    for (const part of ['bin', 'dist', 'package.json']) cpSync(join(repoRoot, part), join(copy, part), { recursive: true });
    rmSync(join(copy, 'dist/llhttp_simd.wasm'));
    const id = String(sb.info.examples.releaseIds[0]);
    const good = await mcat(['release', 'batch', id, '-o', 'json'], { env: sandboxProfileEnv(sb) });
    const log = join(copy, 'loads.txt');
    const r = await execa(cliNode, [join(copy, 'bin/mcat'), 'release', 'batch', id, '-o', 'json'], { reject: false, env: { ...mcatEnv(), ...sandboxProfileEnv(sb), MCAT_TRACE_LOADS: log } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.trimEnd()).toBe(good.stdout.trimEnd());
    expect(readFileSync(log, 'utf8')).toContain('/dist/llhttp-wasm.cjs');
  });

  it('a bundle that is not ASCII (edited by hand) is read as UTF-8 and runs as the built one, from its cache too', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'mcat-utf8-bundle-'));
    for (const part of ['bin', 'dist', 'package.json']) cpSync(join(repoRoot, part), join(copy, part), { recursive: true });
    const bundle = join(copy, 'dist/catalogue.cjs');
    // a comment that V8 keeps as UTF-16 (its source is no longer one byte a character); undici's source is
    // read into the same buffer after it (shorter: what the longer source left there must not show)
    writeFileSync(bundle, readFileSync(bundle, 'utf8') + '\n// caf\u00e9 \u2713\n');
    const id = String(sb.info.examples.releaseIds[0]);
    const good = await mcat(['release', 'batch', id, '-o', 'json'], { env: sandboxProfileEnv(sb) });
    const cache = join(copy, 'cache');
    for (const run of ['first', 'second', 'third']) {
      const r = await execa(cliNode, [join(copy, 'bin/mcat'), 'release', 'batch', id, '-o', 'json'], { reject: false, env: { ...mcatEnv(), ...sandboxProfileEnv(sb), MCAT_CACHE_DIR: cache } });
      expect(r.exitCode, `${run}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout.trimEnd(), run).toBe(good.stdout.trimEnd());
    }
  });

  it('--jq loads the jq engine (its own bundle), and a bad program is refused before the client loads', async () => {
    const id = String(sb.info.examples.releaseIds[0]);
    const r = await loadedPackages(['release', 'batch', id, '--jq', '.items.releases[0].id'], sandboxProfileEnv(sb));
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(id);
    expect(r.bundles).toContain('dist/jq.cjs');
    expect(r.pkgs).toContain('jq-wasm');
    for (const p of ['chalk', 'conf', 'fast-xml-parser', 'better-sqlite3']) expect(r.pkgs).not.toContain(p);
    const bad = await loadedPackages(['release', 'batch', id, '--jq', '.items['], sandboxProfileEnv(sb));
    expect(bad.exitCode).toBe(2);
    expect(bad.bundles).toContain('dist/jq.cjs');
    for (const p of ['undici', 'oauth-1.0a']) expect(bad.pkgs).not.toContain(p);
  });

  it('loads each built-in it uses before it sets V8 flags (one loaded after is compiled from source)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcat-flags-'));
    const hook = afterFlagsHook(dir);
    const id = String(sb.info.examples.releaseIds[0]);
    // stdout and stderr as pipes (as in a script), then as files
    for (const [args, file] of [
      [['--help'], false],
      [['release', 'batch', '--help'], false],
      [['release', 'batch', '--help'], true],
      [['release', 'batch', id, '-o', 'json'], false],
      [['release', 'batch', id, '-o', 'json'], true],
    ] as const) {
      const log = join(dir, 'after-flags.txt');
      const out = join(dir, 'out.txt');
      const r = await execa(cliNode, ['-r', hook, binPath, ...args], {
        reject: false,
        env: { ...mcatEnv(), ...sandboxProfileEnv(sb), AFTER_FLAGS_LOG: log },
        ...(file ? { stdout: { file: out }, stderr: { file: out } } : {}),
      });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(readFileSync(log, 'utf8'), `mcat ${args.join(' ')}${file ? ' > file' : ''}`).toMatch(/^(no flags)?$/);
    }
  });

  it('node:crypto is loaded before the flags by a walk of every page (its signatures after the first few), and never by a short read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcat-flags-crypto-'));
    const hook = afterFlagsHook(dir);
    const id = String(sb.info.examples.releaseIds[0]);
    const idsFile = join(dir, 'ids.txt');
    writeFileSync(idsFile, Array.from({ length: 300 }, (_, i) => Math.min(...sb.info.examples.releaseIds) + i).join('\n') + '\n');
    for (const args of [
      ['locker', '--all', '-o', 'ndjson'],
      ['artist', 'releases', String(sb.info.examples.artistWithManyReleases), '--all', '-o', 'ndjson'],
      // a batch of ids from a file: its calls' base strings (up to 500 ids) are signed by node:crypto
      ['release', 'batch', '--ids-file', idsFile, '-o', 'ndjson'],
      ['playlist', 'list', '-o', 'json'],
      ['release', 'tracks', id, '-o', 'json'],
      ['locker', '-o', 'json'],
    ]) {
      const log = join(dir, 'after-flags.txt');
      const r = await execa(cliNode, ['-r', hook, binPath, ...args], { reject: false, env: { ...mcatEnv(), ...sandboxProfileEnv(sb), AFTER_FLAGS_LOG: log } });
      // (3: the id range holds a few ids the catalogue withdrew; the others are printed)
      expect(args[1] === 'batch' ? [0, 3] : [0], `${args.join(' ')}: ${r.stderr}`).toContain(r.exitCode);
      expect(readFileSync(log, 'utf8'), `mcat ${args.join(' ')}`).not.toMatch(/crypto/);
    }
  });

  it('a bulk apply loads no node:fs/promises (nor its readline), no perf_hooks, no rimraf (fs.rmSync\'s) and no fs.readFile reader (for a regular file) once the flags are set: compiled from source there, they cost every run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcat-flags-apply-'));
    const hook = afterFlagsHook(dir);
    const edits = join(dir, 'edits.ndjson');
    writeFileSync(edits, JSON.stringify({ op: 'details', playlistId: sb.info.examples.playlistIds[0], description: 'flags' }) + '\n');
    const log = join(dir, 'after-flags.txt');
    const r = await execa(cliNode, ['-r', hook, binPath, 'playlist', 'apply', edits, '--journal', join(dir, 'journal')], {
      reject: false,
      env: { ...mcatEnv(), ...sandboxProfileEnv(sb), AFTER_FLAGS_LOG: log },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(log, 'utf8')).not.toMatch(/fs\/promises|readline|perf_hooks|internal\/perf\/|rimraf|fs\/read\/context|crypto/);
  });

  it('a read loads nothing of node:http (undici asks it for nothing mcat uses) nor of node:crypto; its header cap is 16 KiB whatever Node is told', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcat-http-'));
    const hook = join(dir, 'loads.cjs');
    writeFileSync(hook, "process.on('exit', () => require('node:fs').writeFileSync(process.env.LOADS_LOG, process.moduleLoadList.join('\\n')));\n");
    const log = join(dir, 'loads.txt');
    const id = String(sb.info.examples.releaseIds[0]);
    const r = await execa(cliNode, ['-r', hook, binPath, 'release', 'batch', id, '-o', 'json'], { reject: false, env: { ...mcatEnv(), ...sandboxProfileEnv(sb), LOADS_LOG: log } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(log, 'utf8').split('\n').filter((m) => /^NativeModule (_?http|internal\/http)/.test(m))).toEqual([]);
    // nor node:crypto: its one signature is made in JavaScript, its nonce read from /dev/urandom (2.5-7 ms less)
    expect(readFileSync(log, 'utf8').split('\n').filter((m) => /crypto/.test(m))).toEqual([]);
    // an answer whose headers pass the cap: one line, exit 1, even when Node allows more
    const s = await hostile();
    s.on('/1.2/release/details/batch', json({ status: 'ok', items: { releases: [] } }, 200, { 'x-padding': 'x'.repeat(20_000) }));
    const big = await execa(cliNode, [binPath, 'release', 'batch', id, '-o', 'json'], {
      reject: false,
      env: { ...mcatEnv(), ...hostileEnv(s, { MCAT_RETRIES: '0' }), NODE_OPTIONS: '--max-http-header-size=65536' },
    });
    expect(big.exitCode).toBe(1);
    expect(big.stdout).toBe('');
    expect(big.stderr.split('\n')[0]).toMatch(/^mcat: the answer from 127\.0\.0\.1:\d+ has headers larger than 16 KiB; mcat reads no more$/);
  });

  it("a read has V8 compile undici's parser whole (in the background), a --jq read lazily (jq's WebAssembly is 0.9 MB)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcat-flags-'));
    const hook = join(dir, 'flags.cjs');
    writeFileSync(
      hook,
      "const v8 = require('node:v8'); const set = v8.setFlagsFromString; const seen = [];\n" +
        'v8.setFlagsFromString = function (f) { seen.push(f); return set.call(this, f); };\n' +
        "process.on('exit', () => require('node:fs').writeFileSync(process.env.FLAGS_LOG, seen.join(' ')));\n",
    );
    const log = join(dir, 'flags.txt');
    const id = String(sb.info.examples.releaseIds[0]);
    const flagsOf = async (args: string[]) => {
      const r = await execa(cliNode, ['-r', hook, binPath, ...args], { reject: false, env: { ...mcatEnv(), ...sandboxProfileEnv(sb), FLAGS_LOG: log } });
      expect(r.exitCode, r.stderr).toBe(0);
      return readFileSync(log, 'utf8').split(' ');
    };
    expect(await flagsOf(['release', 'batch', id, '-o', 'json'])).toEqual(
      expect.arrayContaining(['--liftoff-only', '--no-wasm-tier-up', '--no-wasm-dynamic-tiering', '--no-wasm-lazy-compilation']),
    );
    for (const jq of [['--jq', '.items'], ['--jq=.items']]) {
      const flags = await flagsOf(['release', 'batch', id, ...jq]);
      expect(flags).toEqual(expect.arrayContaining(['--liftoff-only', '--no-wasm-tier-up', '--no-wasm-dynamic-tiering']));
      expect(flags).not.toContain('--no-wasm-lazy-compilation');
    }
  });

  it("a walk of many pages never has V8 compile undici's parser with TurboFan (Node 24 did, whatever --liftoff-only said: ~25 MB of compiler memory, and the walk's peak 25-30 MB higher)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcat-malloced-'));
    const hook = join(dir, 'malloced.cjs');
    // V8's peak of malloc'd memory (its compilers' zones, WebAssembly's included) at the end of the run
    writeFileSync(
      hook,
      "process.on('exit', () => require('node:fs').writeFileSync(process.env.MALLOCED_LOG, String(require('node:v8').getHeapStatistics().peak_malloced_memory)));\n",
    );
    const log = join(dir, 'malloced.txt');
    const u = sb.info.users.find((x) => x.userId === sb.info.examples.bigLockerUser)!;
    const env = { ...mcatEnv(), ...sandboxProfileEnv(sb), MCAT_TOKEN: u.token, MCAT_TOKEN_SECRET: u.tokenSecret, MCAT_USER_ID: String(u.userId), MALLOCED_LOG: log };
    // 20 pages of ~250 kB: Node 24 tiered the parser up by the 4th (peak 24-25 MB; Node 20: 2-3.5 MB, Node 22: ~1.5 MB)
    const r = await execa(cliNode, ['-r', hook, binPath, 'locker', '--all', '--limit', '1000', '-o', 'ndjson'], { reject: false, env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n').length).toBe(1000);
    expect(Number(readFileSync(log, 'utf8'))).toBeLessThan(10 * 1024 * 1024);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a run whose output drains slowly (its pool left open for the exit) ends as soon as the reader has it all', async () => {
    const first = sb.info.examples.releaseIds[0];
    const ids = Array.from({ length: 300 }, (_, i) => String(first + i)).join(' ');
    const t0 = Date.now();
    // 0.5 MB of JSON: more than a pipe holds, so the launcher waits for the output before it exits
    const r = await execa('bash', ['-c', `"${cliNode}" "${binPath}" release batch ${ids} -o json 2>/dev/null | (sleep 0.3; wc -c)`], {
      reject: false,
      env: { ...mcatEnv(), ...sandboxProfileEnv(sb) } as Record<string, string>,
    });
    expect(Number(r.stdout.trim())).toBeGreaterThan(200_000);
    // not the launcher's 3 s safety net, nor undici's 10 s keep-alive
    expect(Date.now() - t0).toBeLessThan(2500);
  });

  it('the same read as a table loads chalk too', async () => {
    const id = String(sb.info.examples.releaseIds[0]);
    const r = await loadedPackages(['release', 'batch', id, '-o', 'table'], sandboxProfileEnv(sb));
    expect(r.exitCode).toBe(0);
    expect(r.pkgs).toContain('chalk');
  });
});

describe('help output', () => {
  it('help to a pipe or a file makes no stream for stdout or stderr (written to the descriptor), and prints what commander prints in-process', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcat-help-'));
    const hook = join(dir, 'streams.cjs');
    // which of Node's stdio stream modules the run loaded (net: a pipe's; sync_write_stream: a file's; tty: a terminal's)
    writeFileSync(hook, `process.on('exit', () => require('node:fs').writeFileSync(process.env.MODULES_LOG, process.moduleLoadList.filter((m) => /^NativeModule (net|tty|internal\\/fs\\/sync_write_stream)$/.test(m)).join(',')));`);
    const log = join(dir, 'modules.txt');
    for (const args of [['--help'], ['release', '--help'], ['release', 'batch', '--help'], ['help', 'release'], ['release', 'batch', '-h', '-o', 'json']]) {
      for (const file of [false, true]) {
        const out = join(dir, 'out.txt');
        const r = await execa(cliNode, ['-r', hook, binPath, ...args], {
          reject: false,
          env: { ...mcatEnv(), MODULES_LOG: log },
          ...(file ? { stdout: { file: out } } : {}),
        });
        expect(r.exitCode, args.join(' ')).toBe(0);
        const text = file ? readFileSync(out, 'utf8') : `${r.stdout}\n`;
        expect(text, args.join(' ')).toBe((await mcatIn(args)).stdout);
        expect(readFileSync(log, 'utf8'), `${args.join(' ')}${file ? ' > file' : ' | pipe'}`).toBe('');
      }
    }
  });


  const sh = (script: string) => execa('bash', ['-c', script], { env: mcatEnv() as Record<string, string>, reject: false });
  const cli = `"${cliNode}" "${binPath}"`;

  it.skipIf(!hasScript())("on a terminal: fitted to stdout's width when asked for, to stderr's for a line without a command", async () => {
    // (execa drops the last newline)
    const shown = async (line: string, cols: number) => `${(await pty(line, { cols })).out}\n`;
    for (const cols of [60, 120]) {
      expect(await shown(mcatLine(['--help']), cols), `${cols} columns`).toBe(formatHelp(topHelpPage(), cols));
      // stdout a pipe, stderr the terminal: `mcat` alone is commander's help for a missing command, fitted to stderr
      expect(await shown(`${mcatLine([])} | cat`, cols), `${cols} columns`).toBe(formatHelp(topHelpPage(), cols));
      expect(await shown(`${mcatLine(['--help'])} | cat`, cols), `${cols} columns`).toBe(formatHelp(topHelpPage(), 80));
    }
  });

  it('a pipe whose reader has gone ends --help quietly, exit 0 (it was an EPIPE stack trace)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcat-help-'));
    // `true` exits before mcat writes: every write meets a closed pipe
    const r = await sh(`${cli} --help 2>"${dir}/err" | true; echo "\${PIPESTATUS[0]}"; cat "${dir}/err"`);
    expect(r.stdout).toBe('0');
    const sub = await sh(`${cli} release batch --help 2>"${dir}/err" | true; echo "\${PIPESTATUS[0]}"; cat "${dir}/err"`);
    expect(sub.stdout).toBe('0');
  });

  it('a stdout that refuses the write (/dev/full) fails the top-level help as it fails a command\'s help: exit 1, one line', async () => {
    for (const args of ['--help', 'release --help']) {
      const r = await sh(`${cli} ${args} > /dev/full; echo "exit $?"`);
      expect(r.stdout, args).toBe('exit 1');
      expect(r.stderr, args).toBe('mcat: cannot write to stdout: no space left on the device (ENOSPC)');
    }
  });

  it('the same text to a pipe, to a file and to /dev/null', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcat-help-'));
    const piped = await sh(`${cli} --help | cat`);
    expect(piped.exitCode).toBe(0);
    expect(piped.stdout).toMatch(/^Usage: mcat \[options\] \[command\]\n/);
    const file = await sh(`${cli} --help > "${dir}/help.txt" && cat "${dir}/help.txt"`);
    expect(file.stdout).toBe(piped.stdout);
    const nul = await sh(`${cli} --help > /dev/null; echo $?`);
    expect(nul.stdout).toBe('0');
  });
});

describe('--verbose', () => {
  it('an unexpected error\'s stack trace names src/ files and lines, not the minified bundles', async () => {
    // a sandbox folder whose database is not one: the in-process sandbox fails with SQLite's own
    // error (under a Node the SQLite module was not built for, with Node's refusal to load it)
    const dir = mkdtempSync(join(tmpdir(), 'mcat-bad-sandbox-'));
    writeFileSync(join(dir, 'sandbox.db'), 'not a database '.repeat(64));
    const r = await mcat(['release', 'batch', '100001', '-o', 'json', '--verbose'], { sandboxDir: dir });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.split('\n');
    expect(lines[0]).toMatch(sqliteInCli ? /^mcat: unexpected error: file is not a database$/ : /^mcat: the sandbox's SQLite module/);
    const frames = lines.filter((l) => /^\s+at /.test(l));
    expect(frames.length).toBeGreaterThan(3);
    expect(frames.some((f) => f.includes(join(repoRoot, 'src/sandbox/store.ts:')))).toBe(true);
    expect(frames.filter((f) => f.includes('/dist/'))).toEqual([]);
  });

  it('without --verbose: the one line (and hint), no stack', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcat-bad-sandbox-'));
    writeFileSync(join(dir, 'sandbox.db'), 'not a database '.repeat(64));
    const r = await mcat(['release', 'batch', '100001', '-o', 'json'], { sandboxDir: dir });
    expect(r.exitCode).toBe(1);
    expect(r.stderr.split('\n').filter(Boolean).length).toBeLessThanOrEqual(2);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});
