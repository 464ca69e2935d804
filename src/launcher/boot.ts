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
// A cache is code this process runs, and V8 checks little of it (a blob compiled from another
// source of the same length is accepted; the SHA-1 only catches accidents). So it is used only
// when no one but this user can have written it: see trust() below. Otherwise the run compiles
// from source and writes nothing, silently.
//
//   MCAT_CACHE_DIR          where to keep it (default $XDG_CACHE_HOME/mcat or ~/.cache/mcat)
//   MCAT_NO_COMPILE_CACHE   set: compile from source every run, write nothing
//   MCAT_TRACE_LOADS        a file: every bundle and package loaded is appended to it (tests)
import { hash as digest } from 'node:crypto';
import {
  closeSync,
  constants as fsc,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
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

// never through a symbolic link; created private
const TRACE_FLAGS = fsc.O_WRONLY | fsc.O_APPEND | fsc.O_CREAT | fsc.O_NOFOLLOW;

function trace(what: string): void {
  if (!traceFile) return;
  let fd: number;
  try {
    fd = openSync(traceFile, TRACE_FLAGS, 0o600);
  } catch {
    // a link (or no such folder): a trace is for tests, never a reason for a command to fail
    return;
  }
  try {
    writeSync(fd, what + '\n');
  } finally {
    closeSync(fd);
  }
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

interface CacheFile {
  /** the cache's root folder: MCAT_CACHE_DIR, else $XDG_CACHE_HOME/mcat, else ~/.cache/mcat */
  root: string;
  /** root/compile-<node>-<arch>-<flags>: the builds of this Node */
  dir: string;
  /** dir/<build id> */
  buildDir: string;
  /** buildDir/<command>.bin */
  file: string;
}

/** The cache file of this command line, or undefined when there is none to use. */
function cacheFileFor(args: string[]): CacheFile | undefined {
  if (process.env.MCAT_NO_COMPILE_CACHE) return undefined;
  let root = process.env.MCAT_CACHE_DIR;
  if (!root) {
    const xdg = process.env.XDG_CACHE_HOME;
    root = join(xdg && xdg.startsWith('/') ? xdg : join(process.env.HOME || homedir(), '.cache'), 'mcat');
  }
  const words = asksForHelp(args) ? ['help'] : commandWords(args);
  const key = words.length ? words.join('-') : 'mcat';
  // V8 refuses code cached under other flags: runs with other flags keep a cache of their own
  const flags = digest('sha1', `${process.execArgv.join(' ')}\0${process.env.NODE_OPTIONS ?? ''}`, 'hex').slice(0, 8);
  const dir = join(root, `compile-${process.version}-${process.arch}-${flags}`);
  const buildDir = join(dir, __MCAT_BUILD_ID__);
  return { root, dir, buildDir, file: join(buildDir, `${key}.bin`) };
}

const STICKY = 0o1000;

// (no uid on Windows: there the folder's ACLs are the user profile's, and nothing is checked)
const uid = process.getuid?.();

/** Ours alone: owned by this user, no one else may write it, and (lstat) not a symbolic link. */
function ours(st: Stats | undefined, dir: boolean): boolean {
  if (uid === undefined) return st !== undefined;
  return st !== undefined && st.uid === uid && (st.mode & 0o022) === 0 && (dir ? st.isDirectory() : st.isFile());
}

/**
 * Whether the cache's folders are this user's alone: 'yes', 'missing' (some are not there yet;
 * those that are, are ours) or 'no'. The parent of the root may be shared if only its owner (this
 * user or root) can move the root away: not writable by others, or sticky like /tmp (then the root
 * must be 0700). The root, the folder of this Node and the build's folder must each be ours.
 */
function trust(where: CacheFile): 'yes' | 'missing' | 'no' {
  if (uid === undefined) return 'yes';
  try {
    return trustFolders(where, uid);
  } catch {
    // e.g. a file where a folder should be: no cache
    return 'no';
  }
}

function trustFolders(where: CacheFile, uid: number): 'yes' | 'missing' | 'no' {
  // the parent may be a link (~/.cache on another disk): what counts is the folder it leads to
  const parent = statSync(dirname(where.root), { throwIfNoEntry: false });
  if (!parent) return 'missing';
  if (parent.uid !== uid && parent.uid !== 0) return 'no';
  const root = lstatSync(where.root, { throwIfNoEntry: false });
  if (parent.mode & 0o022) {
    if (!(parent.mode & STICKY)) return 'no';
    if (root && (root.mode & 0o077) !== 0) return 'no';
  }
  if (!root) return 'missing';
  if (!ours(root, true)) return 'no';
  for (const d of [where.dir, where.buildDir]) {
    const st = lstatSync(d, { throwIfNoEntry: false });
    if (!st) return 'missing';
    if (!ours(st, true)) return 'no';
  }
  return 'yes';
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
    // not through a link, and only a file of ours that no one else may write
    const fd = openSync(file, fsc.O_RDONLY | fsc.O_NOFOLLOW);
    let buf: Buffer;
    try {
      if (!ours(fstatSync(fd), false)) return undefined;
      buf = readFileSync(fd);
    } finally {
      closeSync(fd);
    }
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

function writeCache(where: CacheFile): void {
  try {
    const parts = loaded.map((l) => ({ name: l.name, data: l.script.createCachedData() }));
    const header = Buffer.from(JSON.stringify(parts.map((p) => [p.name, p.data.length, digest('sha1', p.data, 'base64')])), 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32LE(header.length, 0);
    mkdirSync(where.buildDir, { recursive: true, mode: 0o700 });
    // checked again now that the folders exist (the run started before they did)
    if (trust(where) !== 'yes') return;
    // written whole, then renamed into place: a concurrent run reads the old file or the new one.
    // 'wx': a new file, never one (or a link) someone left there; rename replaces a link, never follows it
    const tmp = `${where.file}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.concat([length, header, ...parts.map((p) => p.data)]), { mode: 0o600, flag: 'wx' });
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
  let where = cacheFileFor(args);
  const trusted = where && trust(where);
  // a folder someone else could write: neither read nor written
  if (trusted === 'no') where = undefined;
  else if (where && trusted === 'yes') cache = readCache(where.file);
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
