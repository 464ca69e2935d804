// What bin/mcat runs (it answers --version itself): loads the CLI's bundles through V8's code
// cache, runs the command and exits. Built to dist/boot.cjs with the bundles' build id.
//
// Why a code cache: compiling the CLI's JavaScript was the largest part of a short run. Node 20
// has no compile cache of its own (module.enableCompileCache came in Node 22), so the launcher
// does what it does: after a successful run it asks V8 for the code it compiled and stores it;
// later runs of the same command start from it. The cache lives in the user's cache directory,
// one file per command, in a folder named by Node's version, its flags and the build id, so a
// stale cache is never read; each blob's SHA-1 is checked before V8 is given it.
//
//   MCAT_CACHE_DIR          where to keep it (default $XDG_CACHE_HOME/mcat or ~/.cache/mcat)
//   MCAT_NO_COMPILE_CACHE   set: compile from source every run, write nothing
//   MCAT_TRACE_LOADS        a file: every bundle and package loaded is appended to it (tests)
import { hash as digest } from 'node:crypto';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { constants, Script } from 'node:vm';
import { asksForHelp, commandWords } from '../cli/argv';

declare const __MCAT_BUILD_ID__: string;

interface Loaded {
  name: string;
  script: Script;
  /** true when this run compiled it without usable cache data */
  compiled: boolean;
}

const distDir = __dirname;
const nodeRequire = createRequire(join(distDir, 'boot.cjs'));
const modules = new Map<string, { exports: unknown }>();
const loaded: Loaded[] = [];
const traceFile = process.env.MCAT_TRACE_LOADS;
let cache: Map<string, CachedBlob> | undefined;

function trace(what: string): void {
  if (traceFile) appendFileSync(traceFile, what + '\n');
}

/** `require` inside the bundles: `./x.cjs` is another bundle of dist/, anything else is Node's. */
function bundleRequire(id: string): unknown {
  if (id.startsWith('./')) return loadBundle(id.slice(2));
  // built-ins, with or without 'node:' (jq-wasm asks for 'fs/promises'), are not packages
  if (traceFile && !isBuiltin(id)) trace(nodeRequire.resolve(id));
  return nodeRequire(id);
}

function loadBundle(name: string): unknown {
  const done = modules.get(name);
  if (done) return done.exports;
  const filename = join(distDir, name);
  trace(filename);
  const source = readFileSync(filename, 'utf8');
  const cachedData = cachedBlob(name);
  // the same wrapper as Node's CommonJS loader, on one line so positions in stack traces hold
  const script = new Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n})`, {
    filename,
    cachedData,
    // the build turns import() into require(); any left over goes to Node's own loader
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  loaded.push({ name, script, compiled: cachedData === undefined || script.cachedDataRejected === true });
  const mod = { exports: {} as unknown };
  modules.set(name, mod);
  script.runInThisContext().call(mod.exports, mod.exports, bundleRequire, mod, filename, distDir);
  return mod.exports;
}

/** The cache file of this command line, or undefined when there is none to use. */
function cacheFileFor(args: string[]): { dir: string; file: string } | undefined {
  if (process.env.MCAT_NO_COMPILE_CACHE) return undefined;
  let base = process.env.MCAT_CACHE_DIR;
  if (!base) {
    const xdg = process.env.XDG_CACHE_HOME;
    base = join(xdg && xdg.startsWith('/') ? xdg : join(process.env.HOME || homedir(), '.cache'), 'mcat');
  }
  const words = asksForHelp(args) ? ['help'] : commandWords(args);
  const key = words.length ? words.join('-') : 'mcat';
  // V8 refuses code cached under other flags: runs with other flags keep a cache of their own
  const flags = digest('sha1', `${process.execArgv.join(' ')}\0${process.env.NODE_OPTIONS ?? ''}`, 'hex').slice(0, 8);
  const dir = join(base, `compile-${process.version}-${process.arch}-${flags}`);
  return { dir, file: join(dir, __MCAT_BUILD_ID__, `${key}.bin`) };
}

interface CachedBlob {
  data: Buffer;
  sha1: string;
}

/**
 * The file: a 4-byte header length, a JSON header [[bundle, bytes, sha1], …], then the data in
 * order. Each blob's digest is checked before V8 sees it (cachedBlob): V8 checks versions, flags
 * and lengths but, in a release build, not the content, and corrupt data makes it abort the
 * process (every later run too, as the file would never be rewritten).
 */
function readCache(file: string): Map<string, CachedBlob> | undefined {
  try {
    const buf = readFileSync(file);
    const headerLength = buf.readUInt32LE(0);
    const header = JSON.parse(buf.subarray(4, 4 + headerLength).toString('utf8')) as [string, number, string][];
    const map = new Map<string, CachedBlob>();
    let at = 4 + headerLength;
    for (const [name, length, sha1] of header) {
      if (typeof name !== 'string' || !Number.isInteger(length) || length < 0 || typeof sha1 !== 'string') return undefined;
      map.set(name, { data: buf.subarray(at, at + length), sha1 });
      at += length;
    }
    return at === buf.length ? map : undefined;
  } catch {
    return undefined;
  }
}

/** A bundle's cached code, if its digest matches what was written. */
function cachedBlob(name: string): Buffer | undefined {
  const blob = cache?.get(name);
  if (!blob) return undefined;
  return digest('sha1', blob.data, 'base64') === blob.sha1 ? blob.data : undefined;
}

function writeCache(where: { dir: string; file: string }): void {
  try {
    const parts = loaded.map((l) => ({ name: l.name, data: l.script.createCachedData() }));
    const header = Buffer.from(JSON.stringify(parts.map((p) => [p.name, p.data.length, digest('sha1', p.data, 'base64')])), 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32LE(header.length, 0);
    const buildDir = join(where.dir, __MCAT_BUILD_ID__);
    mkdirSync(buildDir, { recursive: true, mode: 0o700 });
    // written whole, then renamed into place: a concurrent run reads the old file or the new one
    const tmp = `${where.file}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.concat([length, header, ...parts.map((p) => p.data)]), { mode: 0o600 });
    renameSync(tmp, where.file);
    // caches of earlier builds can never be read again
    for (const other of readdirSync(where.dir)) {
      if (other !== __MCAT_BUILD_ID__) rmSync(join(where.dir, other), { recursive: true, force: true });
    }
  } catch {
    // a cache is an optimisation: a read-only or full disk only means the next run compiles again
  }
}

/** The built-ins that a command calling the API loads (undici, signing, output to a terminal). */
const NETWORK_BUILTINS = [
  'node:http',
  'node:net',
  'node:stream',
  'node:crypto',
  'node:diagnostics_channel',
  'node:async_hooks',
  'node:util',
  'node:querystring',
  'node:string_decoder',
  'node:tty',
  'node:process',
  'node:os',
];

/** Command groups that never call the API. */
const OFFLINE_GROUPS = new Set(['profile', 'completion', 'version']);

export async function run(argv: string[]): Promise<void> {
  const args = argv.slice(2);
  // undici parses HTTP with WebAssembly; V8's optimising tier for it costs ~50 ms of every run
  // and buys nothing for responses of this size: the baseline compiler alone is enough. But a
  // flag set at run time also changes the hash that Node's own code cache of its built-in modules
  // is checked against: every built-in loaded afterwards is compiled from source (http, net,
  // stream and crypto: 3.7 ms become 8.3). So the built-ins a command that calls the API needs
  // are loaded first. (Setting the flag only around undici's compile does not work: V8 does not
  // restore the flag hash when the flag is unset, and our own code cache would never match.)
  if (!asksForHelp(args) && !OFFLINE_GROUPS.has(commandWords(args, 1)[0] ?? '')) {
    for (const m of NETWORK_BUILTINS) nodeRequire(m);
  }
  (nodeRequire('node:v8') as typeof import('node:v8')).setFlagsFromString('--liftoff-only');
  const where = cacheFileFor(args);
  if (where) cache = readCache(where.file);
  const { main } = loadBundle('mcat.cjs') as { main: (argv: string[]) => Promise<number> };
  const code = await main(argv);
  // A successful run knows the command's code: keep it when the cache lacked any of it.
  if (where && code === 0 && loaded.some((l) => l.compiled)) writeCache(where);
  // The command is over (its cleanups ran). With nothing left to flush, exit now rather than
  // wait for V8's background work; otherwise let Node flush and exit on its own.
  process.exitCode = code;
  if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit(code);
  // Safety net: a handle left open must not keep a finished command alive.
  setTimeout(() => process.exit(code), 3000).unref();
}
