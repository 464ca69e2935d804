// What bin/mcat runs (it answers --version itself): loads the CLI's bundles from a compile cache,
// runs the command and exits. Built to dist/boot.cjs with the bundles' build id.
//
// The CLI is dist/mcat.cjs, or for a line of a catalogue group (release, artist, track: argv.ts
// bundleFor) dist/catalogue.cjs, the same CLI with those groups' commands only: V8 compiles a
// bundle's top level whole, each function declared there included, and a read's code cache of
// mcat.cjs held 438 kB (192 kB of it that top level); catalogue.cjs's is ~80 kB smaller, its
// source 250 kB shorter (measured: 3% fewer instructions in a read).
//
// Why a compile cache: compiling the CLI's JavaScript was the largest part of a short run.
// - Node 22.1 and later: Node's own (module.enableCompileCache), the bundles loaded by require().
//   It keeps the code V8 compiled when a bundle loaded, not what the run compiled later (ours
//   keeps that too): on Node 24 a read took ~15 ms more than with ours (issue 12 chose Node's).
// - Node 20 has none, so the launcher keeps its own: each bundle is loaded as a vm.Script; after a
//   successful run it asks V8 for the code it compiled and stores it (and once more after the next
//   successful run: see run()); later runs of the same command start from it. One file per command,
//   in a folder named by Node's version and V8's cache tag (its version, flags and CPU features),
//   and one per build, so a stale cache is never read. V8
//   checks each blob's checksum before it uses it (--verify-snapshot-checksum: without it, corrupt
//   data makes V8 abort the process, and every later run too).
//
// A cache is code this process runs, and V8 checks little of it (a blob compiled from another
// source of the same length is accepted; the checksum only catches accidents). So it is used only
// when no one but this user can have written it: see trust() below. Otherwise the run compiles
// from source and writes nothing, silently. Node's cache gets the same checks: the folder handed to
// it must be this user's alone.
//
// With --verbose the bundles are loaded by require() (no cache of ours on Node 20): bin/mcat has
// turned Node's source maps on, so a stack trace names src/ files and lines, not positions in a
// minified bundle.
//
//   MCAT_CACHE_DIR          where to keep it (default $XDG_CACHE_HOME/mcat or ~/.cache/mcat)
//   MCAT_NO_COMPILE_CACHE   set: compile from source every run, write nothing
//   MCAT_TRACE_LOADS        a file: every bundle and package loaded is appended to it (tests)
import {
  closeSync,
  constants as fsc,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { isAscii } from 'node:buffer';
import Module, { createRequire, isBuiltin } from 'node:module';
import { basename, dirname, join } from 'node:path';
import type { Script } from 'node:vm';
import { asksForHelp, bundleFor, commandWords } from '../cli/argv';
import { processContext } from './process-context';

declare const __MCAT_BUILD_ID__: string;

interface Loaded {
  name: string;
  script: Script;
  /** true when this run compiled it without usable cache data */
  compiled: boolean;
}

const distDir = __dirname;
const bootFile = join(distDir, 'boot.cjs');
const nodeRequire = createRequire(bootFile);
const modules = new Map<string, { exports: unknown }>();
const loaded: Loaded[] = [];
const traceFile = process.env.MCAT_TRACE_LOADS;
let cache: Map<string, Buffer> | undefined;
/** How many successful runs the cache read holds the code of (see run()); 0: no cache read */
let cacheRuns = 0;
let vm: typeof import('node:vm') | undefined;

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

// the same wrapper as Node's CommonJS loader, on one line so positions in stack traces hold
const HEAD = '(function (exports, require, module, __filename, __dirname) { ';
const TAIL = '\n})';

/** Where each bundle's source is read, in its wrapper (grown to the largest; V8 copies it into a string). */
let scratch: Buffer | undefined;

/**
 * A bundle's source in its wrapper, one string. The build's bundles are ASCII (a test checks): read
 * between the wrapper's two ends in one buffer, reused from bundle to bundle, and copied once into a
 * one-byte string. Decoding UTF-8 and joining the wrapper to it (V8 copies the joined string again to
 * compile it) took ~1 ms more of every run, and a new buffer for each source and another for the
 * joined bytes cost a run fresh memory (page faults) for each bundle's source twice over.
 */
function wrapped(filename: string): string {
  const fd = openSync(filename, 'r');
  try {
    const size = fstatSync(fd).size;
    const end = HEAD.length + size;
    if (!scratch || scratch.length < end + TAIL.length) scratch = Buffer.allocUnsafeSlow(end + TAIL.length);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, scratch, HEAD.length + read, size - read, null);
      if (n === 0) break;
      read += n;
    }
    const bytes = scratch.subarray(HEAD.length, HEAD.length + read);
    if (!isAscii(bytes)) return `${HEAD}${bytes.toString('utf8')}${TAIL}`;
    scratch.write(HEAD, 0, 'latin1');
    scratch.write(TAIL, HEAD.length + read, 'latin1');
    return scratch.toString('latin1', 0, HEAD.length + read + TAIL.length);
  } finally {
    closeSync(fd);
  }
}

/**
 * undici's HTTP parser (dist/llhttp_simd.wasm) compiled on V8's background threads while the CLI
 * loads: when undici compiles the same bytes at its first connection, V8 hands it this module
 * (~1 ms of the main thread in every run that calls the API), waiting for it when it is not done
 * (run() gives it the turn of the event loop it needs to start); a failure (no SIMD, no file)
 * leaves undici to fall back as it does.
 */
// (Node's types declare WebAssembly's types, not the global object)
type Wasm = { compile(bytes: Uint8Array): Promise<unknown> };

function warmParser(): void {
  // undici's own switch to the parser without SIMD
  if (process.env.UNDICI_NO_WASM_SIMD === '1') return;
  try {
    (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly.compile(readFileSync(join(distDir, 'llhttp_simd.wasm'))).catch(() => undefined);
  } catch {
    // undici reads the file itself, and says so if it cannot
  }
}

/** A bundle through V8's code cache of this launcher (Node 20). */
function loadBundle(name: string): unknown {
  const done = modules.get(name);
  if (done) return done.exports;
  const filename = join(distDir, name);
  trace(filename);
  const cachedData = cache?.get(name);
  vm ??= nodeRequire('node:vm') as typeof import('node:vm');
  const script = new vm.Script(wrapped(filename), {
    filename,
    cachedData,
    // the build turns import() into require(); any left over goes to Node's own loader
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  loaded.push({ name, script, compiled: cachedData === undefined || script.cachedDataRejected === true });
  const mod = { exports: {} as unknown };
  modules.set(name, mod);
  script.runInThisContext().call(mod.exports, mod.exports, bundleRequire, mod, filename, distDir);
  return mod.exports;
}

/** The cache's root folder: MCAT_CACHE_DIR, else $XDG_CACHE_HOME/mcat, else ~/.cache/mcat. */
function cacheRoot(): string | undefined {
  if (process.env.MCAT_NO_COMPILE_CACHE) return undefined;
  const root = process.env.MCAT_CACHE_DIR;
  if (root) return root;
  const xdg = process.env.XDG_CACHE_HOME;
  if (xdg && xdg.startsWith('/')) return join(xdg, 'mcat');
  const home = process.env.HOME || (nodeRequire('node:os') as typeof import('node:os')).homedir();
  return join(home, '.cache', 'mcat');
}

interface CacheFile {
  root: string;
  /** root/compile-<node>-<arch>-<V8 cache tag>: the builds of this Node and these flags */
  dir: string;
  /** dir/<build id> */
  buildDir: string;
  /** buildDir/<command>.bin */
  file: string;
}

/**
 * This command line's file in the launcher's own cache (V8 flags already set). A command's lines run
 * one bundle (its first word decides: argv.ts bundleFor); help, which any line may ask for, has a
 * file per bundle: help (mcat.cjs) and help-catalogue (catalogue.cjs), so that neither replaces
 * the other's.
 */
function cacheFileFor(root: string, args: string[], tag: number, bundle: string): CacheFile {
  const words = asksForHelp(args) ? (bundle === 'catalogue.cjs' ? ['help', 'catalogue'] : ['help']) : commandWords(args);
  const key = words.length ? words.join('-') : 'mcat';
  // V8 refuses code cached under another version, other flags or CPU features: its tag names them
  const dir = join(root, `compile-${process.version}-${process.arch}-${(tag >>> 0).toString(16).padStart(8, '0')}`);
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
 * Whether a cache's folders are this user's alone: 'yes', 'missing' (some are not there yet;
 * those that are, are ours) or 'no'. The parent of the root may be shared if only its owner (this
 * user or root) can move the root away: not writable by others, or sticky like /tmp (then the root
 * must be 0700). The root and each folder below it (in order) must be ours.
 */
function trust(root: string, folders: string[]): 'yes' | 'missing' | 'no' {
  if (uid === undefined) return 'yes';
  try {
    return trustFolders(root, folders, uid);
  } catch {
    // e.g. a file where a folder should be: no cache
    return 'no';
  }
}

function trustFolders(rootPath: string, folders: string[], uid: number): 'yes' | 'missing' | 'no' {
  // the parent may be a link (~/.cache on another disk): what counts is the folder it leads to
  const parent = statSync(dirname(rootPath), { throwIfNoEntry: false });
  if (!parent) return 'missing';
  if (parent.uid !== uid && parent.uid !== 0) return 'no';
  const root = lstatSync(rootPath, { throwIfNoEntry: false });
  if (parent.mode & 0o022) {
    if (!(parent.mode & STICKY)) return 'no';
    if (root && (root.mode & 0o077) !== 0) return 'no';
  }
  if (!root) return 'missing';
  if (!ours(root, true)) return 'no';
  for (const d of folders) {
    const st = lstatSync(d, { throwIfNoEntry: false });
    if (!st) return 'missing';
    if (!ours(st, true)) return 'no';
  }
  return 'yes';
}

/** Creates the folders (0700) and checks them again now that they exist: true when all are ours. */
function makeTrusted(root: string, folders: string[]): boolean {
  try {
    mkdirSync(folders[folders.length - 1] ?? root, { recursive: true, mode: 0o700 });
  } catch {
    return false;
  }
  return trust(root, folders) === 'yes';
}

/**
 * The file: a 4-byte header length, a JSON header {"runs": N, "parts": [[bundle, bytes], …]}, then
 * the data in order. V8 checks versions, flags, lengths and (with --verify-snapshot-checksum) a
 * checksum of each blob.
 *
 * Each blob starts at a multiple of 8 bytes (the header is padded with spaces, each blob with
 * zeros): V8 copies cached data that is not 8-byte aligned before it reads it, and a read's blobs
 * (540 kB) were all 4 bytes off, a copy into fresh memory every run. The file is read into a
 * buffer of its own (readFileSync of a file this size: not from Node's pool), aligned as malloc's.
 */
const ALIGN = 8;
const aligned = (n: number) => Math.ceil(n / ALIGN) * ALIGN;

function readCache(file: string): { parts: Map<string, Buffer>; runs: number } | undefined {
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
    const header = JSON.parse(buf.subarray(4, 4 + headerLength).toString('utf8')) as { runs?: unknown; parts?: unknown };
    if (!Number.isInteger(header.runs) || !Array.isArray(header.parts)) return undefined;
    const map = new Map<string, Buffer>();
    let at = aligned(4 + headerLength);
    for (const part of header.parts as unknown[]) {
      const [name, length] = Array.isArray(part) ? (part as unknown[]) : [];
      if (typeof name !== 'string' || typeof length !== 'number' || !Number.isInteger(length) || length < 0) return undefined;
      map.set(name, buf.subarray(at, at + length));
      at = aligned(at + length);
    }
    return at === buf.length ? { parts: map, runs: header.runs as number } : undefined;
  } catch {
    return undefined;
  }
}

function writeCache(where: CacheFile, runs: number): void {
  try {
    const parts = loaded.map((l) => ({ name: l.name, data: l.script.createCachedData() }));
    const json = Buffer.from(JSON.stringify({ runs, parts: parts.map((p) => [p.name, p.data.length]) }), 'utf8');
    // (JSON ends in spaces as well as it does without them)
    const header = Buffer.concat([json, Buffer.alloc(aligned(4 + json.length) - 4 - json.length, ' ')]);
    const length = Buffer.alloc(4);
    length.writeUInt32LE(header.length, 0);
    const pad = (data: Buffer) => Buffer.alloc(aligned(data.length) - data.length);
    // checked again now that the folders exist (the run started before they did)
    if (!makeTrusted(where.root, [where.dir, where.buildDir])) return;
    // written whole, then renamed into place: a concurrent run reads the old file or the new one.
    // 'wx': a new file, never one (or a link) someone left there; rename replaces a link, never follows it
    const tmp = `${where.file}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.concat([length, header, ...parts.flatMap((p) => [p.data, pad(p.data)])]), { mode: 0o600, flag: 'wx' });
    renameSync(tmp, where.file);
    // caches of earlier builds can never be read again
    for (const other of readdirSync(where.dir)) {
      if (other !== __MCAT_BUILD_ID__) rmSync(join(where.dir, other), { recursive: true, force: true });
    }
    pruneOtherNodes(where);
  } catch {
    // a cache is an optimisation: a read-only or full disk only means the next run compiles again
  }
}

/** A cache folder of another Node or other V8 flags is read only while that Node is used. */
const STALE_AFTER_MS = 30 * 24 * 3600 * 1000;

/**
 * The caches of other Node versions (or V8 flags) left behind by an upgrade: a folder of them not
 * written for 30 days goes (a Node still in use writes its folder again, once per command). Only
 * folders (lstat: never a link's target); run only when this run wrote its cache, so rarely.
 */
function pruneOtherNodes(where: CacheFile): void {
  const mine = basename(where.dir);
  const now = Date.now();
  for (const other of readdirSync(where.root)) {
    if (!other.startsWith('compile-') || other === mine) continue;
    const p = join(where.root, other);
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (st?.isDirectory() && now - st.mtimeMs > STALE_AFTER_MS) rmSync(p, { recursive: true, force: true });
  }
}

/**
 * Node's own compile cache (22.1 and later) in root/node, when that folder is this user's alone.
 * Node makes a folder per Node version, flags and user inside it, and its files there; we do not
 * check those one by one, so the folder must be 0700: then no one else can reach anything below
 * it. (Node's folder is created under umask 077 here, its files are 0600.)
 */
function enableNodeCache(root: string, enable: (dir: string) => unknown): void {
  const dir = join(root, 'node');
  const trusted = trust(root, [dir]);
  if (trusted === 'no' || (trusted === 'missing' && !makeTrusted(root, [dir]))) return;
  if (uid !== undefined && (lstatSync(dir).mode & 0o077) !== 0) return;
  const umask = process.umask(0o077);
  try {
    enable(dir);
  } catch {
    // no cache, as with an untrusted folder
  } finally {
    process.umask(umask);
  }
}

/** Every bundle and package Node's require() loaded (the trace of a run without our loader). */
function traceRequired(): void {
  const launcher = new Set([bootFile, nodeRequire.main?.filename]);
  for (const file of Object.keys(nodeRequire.cache)) if (!launcher.has(file)) trace(file);
}

/** The built-ins that a command calling the API loads (undici, signing, output to a terminal; no node:http: see the build). */
const NETWORK_BUILTINS = [
  'node:net',
  'node:stream',
  'node:diagnostics_channel',
  'node:async_hooks',
  'node:util',
  'node:querystring',
  'node:string_decoder',
  'node:tty',
  'node:process',
  'node:os',
];

/**
 * Whether the command uses node:crypto whatever its size: bulk edits (their keys, the journal and
 * its lock), a download (its temporary name and record), an XML walk (its pages' checks), a walk
 * of every page (its signatures after the first few: src/client/oauth.ts), a batch of ids from a
 * file or of many (its calls' long base strings, never signed in JavaScript). Those load it with the
 * other built-ins, before any V8 flag is set; a short read signs without it (src/client/sha1.ts).
 */
function usesCrypto(args: readonly string[]): boolean {
  const [group, command] = commandWords(args, 2);
  if (group === 'playlist' && (command === 'apply' || command === 'export')) return true;
  if (group === 'locker' && command === 'download') return true;
  // ids from a file or standard input, or many: a call's base string is long, signed by node:crypto (oauth.ts)
  if (group === 'release' && command === 'batch' && args.some((a) => a === '-' || a === '--ids-file' || a.startsWith('--ids-file=') || a.length > 200)) return true;
  return args.some((a) => a === '--all' || a === 'xml' || a === '-oxml' || a === '--output=xml' || a === '--limit' || a.startsWith('--limit='));
}

/**
 * stdout and stderr as this run created them. Node makes each on first use, and a pipe's stream
 * costs ~3 ms of modules: the check for unflushed output before exiting must not make one.
 */
const streams: NodeJS.WriteStream[] = [];
for (const name of ['stdout', 'stderr'] as const) {
  const d = Object.getOwnPropertyDescriptor(process, name);
  if (!d?.get || !d.configurable) continue;
  const get = d.get;
  Object.defineProperty(process, name, {
    ...d,
    get() {
      const s = get.call(process) as NodeJS.WriteStream;
      if (!streams.includes(s)) streams.push(s);
      return s;
    },
  });
}

/** Whether a descriptor may be a terminal (a character device), as src/output/streams.ts asks it. */
function mayBeTerminal(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return true;
  }
}

/** Command groups that never call the API. */
const OFFLINE_GROUPS = new Set(['profile', 'completion', 'version']);

/**
 * The top-level help (dist/help.cjs, 18 kB): Node's loader compiles it in less time than a cache of
 * it takes to find, check and read. No V8 flag is set, so nothing is loaded ahead of one, and a
 * stream is made only for a terminal (the help writes to a pipe or a file's descriptor at once).
 */
async function runTopHelp(args: string[]): Promise<number> {
  if (traceFile) process.on('exit', traceRequired);
  const help = nodeRequire('./help.cjs') as { runCli: typeof import('../cli/top-help').runCli };
  return help.runCli(args, processContext());
}

export async function run(argv: string[]): Promise<void> {
  const args = argv.slice(2);
  // mcat.cjs, or catalogue.cjs (the same CLI with the catalogue groups' commands only) for their lines
  const bundle = bundleFor(args);
  if (bundle === 'help.cjs') return exit(await runTopHelp(args));
  const help = asksForHelp(args);
  const networked = !help && !OFFLINE_GROUPS.has(commandWords(args, 1)[0] ?? '');
  const verbose = args.includes('--verbose') || args.includes('-v');
  const enableCompileCache = (Module as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache;
  const root = cacheRoot();
  // Node 20: our own cache, unless the run wants source-mapped stack traces
  const ownLoader = !enableCompileCache && !verbose;
  // A V8 flag set at run time changes the hash that Node's code cache of its built-in modules is
  // checked against: every built-in loaded afterwards is compiled from source (http, net, stream
  // and crypto: 3.7 ms become 8.3). So what the run will load anyway is loaded first: the streams
  // behind stdout and stderr (a terminal, a pipe or a file: every run makes both when
  // src/output/streams.ts guards them before the command starts; help to pipes or files makes
  // neither, main.ts), vm (this loader's), process (commander's), and for a command that calls the
  // API, the network stack.
  if (!help || mayBeTerminal(1) || mayBeTerminal(2)) {
    void process.stdout;
    void process.stderr;
  }
  if (ownLoader) vm = nodeRequire('node:vm') as typeof import('node:vm');
  nodeRequire('node:process');
  if (networked) for (const m of NETWORK_BUILTINS) nodeRequire(m);
  if (networked && usesCrypto(args)) nodeRequire('node:crypto');
  const flags: string[] = [];
  // undici parses HTTP with WebAssembly; V8's optimising tier for it costs ~50 ms of every run and
  // buys nothing for responses of this size: the baseline compiler alone is enough. (Setting the
  // flag only around undici's compile does not work: V8 does not restore the flag hash when the
  // flag is unset, and no code cache would ever match.)
  // What --liftoff-only implies is spelled out: Node 24's V8 does not apply a flag's implications
  // when it is set at run time (Node 20's and 22's do), and its dynamic tiering went on compiling
  // the parser's hot functions with TurboFan a few pages into a walk: ~25 MB of compiler zones,
  // malloc'd and freed at once, after which glibc (its mmap threshold raised to the largest chunk
  // freed) kept every later 250 kB page buffer in its heap: the big locker's walk peaked 25-30 MB
  // higher than on Node 20. Setting the two without --liftoff-only would not do: without dynamic
  // tiering, V8 compiles every function with TurboFan up front. On Node 20 and 22 the three are
  // what --liftoff-only already set (the same flag hash: the code caches still match).
  if (networked) flags.push('--liftoff-only', '--no-wasm-tier-up', '--no-wasm-dynamic-tiering');
  // Compiled whole (by warmParser, on V8's background threads), not function by function at its
  // first call, in the first answer's parse on the main thread (~1.3 ms). Not with --jq: jq's own
  // WebAssembly (0.9 MB) takes 15 ms to compile whole, 3 ms lazily.
  if (networked && !args.some((a) => a === '--jq' || a.startsWith('--jq='))) flags.push('--no-wasm-lazy-compilation');
  if (ownLoader && root !== undefined) flags.push('--verify-snapshot-checksum');
  const v8 = flags.length ? (nodeRequire('node:v8') as typeof import('node:v8')) : undefined;
  if (v8) v8.setFlagsFromString(flags.join(' '));
  if (networked) warmParser();

  let mcat: { runCli: typeof import('../cli/main').runCli };
  let where: CacheFile | undefined;
  if (ownLoader) {
    where = root === undefined ? undefined : cacheFileFor(root, args, v8!.cachedDataVersionTag(), bundle);
    const trusted = where && trust(where.root, [where.dir, where.buildDir]);
    // a folder someone else could write: neither read nor written
    if (trusted === 'no') where = undefined;
    else if (where && trusted === 'yes') {
      const read = readCache(where.file);
      cache = read?.parts;
      cacheRuns = read?.runs ?? 0;
    }
    mcat = loadBundle(bundle) as typeof mcat;
  } else {
    // (bin/mcat turned source maps on for a --verbose run)
    if (enableCompileCache && root !== undefined) enableNodeCache(root, enableCompileCache);
    if (traceFile) process.on('exit', traceRequired);
    mcat = nodeRequire(`./${bundle}`) as typeof mcat;
  }
  // One turn of the event loop before the command starts, for warmParser's compile: V8 compiles
  // WebAssembly on its background threads only after a step on the main thread (its foreground
  // task, posted once the module is decoded), and a run that calls the API has no turn of the
  // loop before its first connection, where undici compiles the same bytes and waits for that
  // compile (~3 ms of every such run, profiled: V8's `Module` 3.4 ms a run, 0.15 ms with the turn).
  if (networked) await new Promise((r) => setImmediate(r));
  const code = await mcat.runCli(args, processContext());
  // A successful run knows the command's code: keep it when the cache lacked any of it.
  // And once more after the next successful run of the command, from the code the two runs
  // compiled: a first run often takes other paths than the runs after it (a bulk apply of creates,
  // then of replaces: the replaces' code was compiled from source in every later run, 2.5% of the
  // instructions of a 1,000-replace apply), and V8 cannot tell a run that a function is missing from
  // its cache without making the cache again (~15-35 ms for a large command: not in every run).
  if (where && code === 0 && (loaded.some((l) => l.compiled) || cacheRuns === 1)) writeCache(where, cacheRuns + 1);
  exit(code);
}

/**
 * The command is over (its cleanups ran). With nothing left to flush, exit now rather than wait
 * for V8's background work; otherwise let Node flush and exit on its own.
 */
function exit(code: number): void {
  process.exitCode = code;
  if (streams.every((s) => s.writableLength === 0)) process.exit(code);
  // Safety net: a handle left open must not keep a finished command alive.
  setTimeout(() => process.exit(code), 3000).unref();
}
