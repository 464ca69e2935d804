// Builds dist/: the CLI as a few CommonJS bundles that bin/mcat loads through V8's code cache
// (src/launcher/boot.ts). Node 20 has no compile cache for ES modules, and compiling the CLI's
// source was the largest part of every run, so the bundles are CommonJS scripts.
//
//   dist/boot.cjs      the launcher's work: --version, the code cache, run, exit
//   dist/mcat.cjs      the CLI: our code and commander
//   dist/catalogue.cjs the same CLI with the catalogue groups' commands only (release, artist, track):
//                      what the launcher runs for their lines (src/cli/argv.ts bundleFor)
//   dist/locker-worker.cjs  a worker thread of a long `locker --all -o ndjson` (src/cli/locker-worker.ts)
//   dist/help.cjs      the top-level help (src/cli/top-help.ts: the registry's definitions and the
//                      help's layout, no commander, no command): what `mcat --help` and `mcat` run
//   dist/<split>.cjs   heavy parts loaded only by the commands that need them (see SPLITS)
//   dist/llhttp-wasm.cjs  undici's HTTP parser without SIMD, loaded only where SIMD fails
//   dist/llhttp_simd.wasm undici's HTTP parser (with SIMD) as bytes: undici.cjs reads them, and the
//                      launcher has V8 compile them in the background from the start of a run
//   dist/*.cjs.map     source maps (read only by a --verbose run, for its stack traces)
//   dist/meta.json     which bundle holds which source (the start-up test reads it)
//   dist/build/jq.wasm jq itself, which dist/jq.cjs (jq-wasm) reads beside it when --jq is given
//   dist/sandbox-api.{mjs,cjs}  `mcat/sandbox` (package.json exports): the sandbox for partners'
//                      test suites, bundled on its own (no CLI in it); sandbox-api.meta.json lists its sources
//
// A split is a module boundary with nothing stateful on both sides (a third-party package, or
// one of our modules that imports nothing the rest also imports), so no class exists twice and
// `instanceof` holds across bundles.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isBuiltin } from 'node:module';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const dist = join(root, 'dist');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** Heavy parts, each in a bundle of its own: `pkg` is a bare import specifier, `file` one of ours. */
const SPLITS = [
  // with short local names: its code cache (every run that calls the API deserializes it) is 186 kB
  // instead of 263, its source 149 kB instead of 219; undici names its errors itself, never by class
  { out: 'undici.cjs', file: 'src/client/undici.ts', minifyIdentifiers: true },
  { out: 'zod.cjs', file: 'src/client/schemas/zod.ts' },
  { out: 'oauth.cjs', pkg: 'oauth-1.0a' },
  { out: 'chalk.cjs', pkg: 'chalk' },
  { out: 'conf.cjs', pkg: 'conf' },
  { out: 'fast-xml-parser.cjs', pkg: 'fast-xml-parser' },
  { out: 'sandbox.cjs', file: 'src/sandbox/index.ts' },
  // its CommonJS build (esbuild would take the ES one, whose __dirname shim needs import.meta)
  { out: 'jq.cjs', pkg: 'jq-wasm', entry: require.resolve('jq-wasm') },
];

const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: 'none',
  // dist/<bundle>.cjs.map, positions only: with --verbose the launcher turns Node's source maps on,
  // and a stack trace names src/ files and lines instead of positions in a minified bundle
  sourcemap: 'linked',
  sourcesContent: false,
  // native addon: resolved from node_modules at run time
  external: ['better-sqlite3'],
  define: { __MCAT_VERSION__: JSON.stringify(pkg.version) },
  metafile: true,
  logLevel: 'warning',
  write: false,
};

function stripTs(p) {
  return p.replace(/\.ts$/, '');
}

/**
 * Imports of another split become `require('./<split>.cjs')`, which the launcher serves. `pure`:
 * an import whose bindings are unused is dropped (the locker's worker thread: trace.ts imports
 * oauth.ts for percentEncode, which would load oauth-1.0a there for nothing).
 */
function splitsPlugin(self, pure = false) {
  const files = new Map(SPLITS.filter((s) => s.file && s !== self).map((s) => [stripTs(join(root, s.file)), s.out]));
  const pkgs = new Map(SPLITS.filter((s) => s.pkg && s !== self).map((s) => [s.pkg, s.out]));
  return {
    name: 'mcat-splits',
    setup(b) {
      const split = (args) => {
        if (pkgs.has(args.path)) return pkgs.get(args.path);
        if (args.path.startsWith('.')) return files.get(stripTs(resolve(args.resolveDir, args.path)));
        return undefined;
      };
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point' || args.namespace === 'mcat-split') return undefined;
        if (args.kind === 'dynamic-import' && isBuiltin(args.path)) return { path: args.path, namespace: 'mcat-split' };
        const out = split(args);
        return out ? { path: out, namespace: 'mcat-split', ...(pure ? { sideEffects: false } : {}) } : undefined;
      });
      // Every import of another bundle goes through a stub that re-exports it, for two reasons:
      // - esbuild leaves import() of an external module as import(), which a script has no loader
      //   for; in the stub it is a static import, which becomes require();
      // - our sources are ES modules of a "type": "module" package, so esbuild gives them Node's
      //   interop (default = the whole module.exports); the stub, outside any package, gets the
      //   __esModule interop (default = exports.default of a bundle built from an ES module).
      b.onLoad({ filter: /.*/, namespace: 'mcat-split' }, (args) => {
        const spec = JSON.stringify(isBuiltin(args.path) ? args.path : `./${args.path}`);
        return { contents: `export * from ${spec};\nexport { default } from ${spec};\n`, loader: 'js' };
      });
      b.onResolve({ filter: /.*/, namespace: 'mcat-split' }, (args) => ({ path: args.path, external: true }));
    },
  };
}

// Node built-ins that dependencies load at start-up but a run rarely uses: loading http2 (and tls
// with it), child_process and assert cost ~5 ms of every run. Each is loaded when first used.
// And undici's HTTP parser as WebAssembly without SIMD (72 kB of base64), which undici compiles
// only where the SIMD one fails: a bundle of its own, so every run that calls the API reads (and
// V8 hashes) 72 kB less of dist/undici.cjs.
//
// undici's parser with SIMD is read as bytes from dist/llhttp_simd.wasm (in undici: 72 kB of base64
// in a string): the launcher reads the same file to have V8 compile it early (src/launcher/boot.ts).
const LAZY_SOURCES = {
  llhttpWasm: () => "module.exports = require('./llhttp-wasm.cjs');",
  // undici's module has the same lazy getter around its Buffer
  llhttpSimd: () =>
    'let wasm;\n' +
    "Object.defineProperty(module, 'exports', { get: () => (wasm ??= require('node:fs').readFileSync(require('node:path').join(__dirname, 'llhttp_simd.wasm'))) });",
  // undici's HTTP/2 client, only used with allowH2 (never by mcat): loaded on first call
  h2: (real) => `let m; module.exports = function connectH2(...a) { m ??= require(${JSON.stringify(real)}); return m.apply(this, a); };`,
  // commander spawns executable sub-commands (mcat has none) through child_process
  childProcess: () =>
    "module.exports = new Proxy({}, { get: (_, k) => require('node:child_process')[k] });",
  // undici loads node:http (18 modules, ~0.8 ms of every run that calls the API) for two things
  // that never happen in mcat: core/util.js compares a stream's class with a server's request
  // (IncomingMessage; mcat hands undici strings), and client.js reads Node's
  // --max-http-header-size as the default header cap, which the transport sets itself
  nodeHttp: () => 'module.exports = { IncomingMessage: class IncomingMessage {}, maxHeaderSize: 16384 };',
  // undici checks that node:crypto can be loaded (util/runtime-features.js) and keeps its randomInt
  // (web/fetch/body.js, for multipart boundaries mcat never makes) when its module loads, and conf
  // imports it for an encryption mcat does not use: loading node:crypto costs a short run 2.5-7 ms,
  // and a read signs without it (src/client/sha1.ts). Each only calls its functions.
  cryptoLazy: () => "module.exports = new Proxy({}, { get: (_, k) => (...a) => require('node:crypto')[k](...a) });",
  // undici only calls assert(value): a passing check needs no module; a failing one throws node's AssertionError
  assert: () =>
    "function assert(value, message) { if (!value) require('node:assert')(value, message); }\n" +
    "module.exports = new Proxy(assert, { get: (t, k) => (k === 'prototype' ? t.prototype : require('node:assert')[k]) });",
};

const lazyBuiltinsPlugin = {
  name: 'mcat-lazy-builtins',
  setup(b) {
    b.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) => {
      if (!/node_modules[\\/]undici[\\/]/.test(args.importer) || args.namespace === 'mcat-lazy') return undefined;
      return { path: join(args.resolveDir, 'client-h2.js'), namespace: 'mcat-lazy', pluginData: 'h2' };
    });
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /node_modules[\\/]commander[\\/]/.test(args.importer) ? { path: 'child_process', namespace: 'mcat-lazy', pluginData: 'childProcess' } : undefined,
    );
    b.onResolve({ filter: /^(node:)?http$/ }, (args) =>
      /node_modules[\\/]undici[\\/]lib[\\/](core[\\/]util|dispatcher[\\/]client)\.js$/.test(args.importer) ? { path: 'http', namespace: 'mcat-lazy', pluginData: 'nodeHttp' } : undefined,
    );
    b.onResolve({ filter: /^(node:)?crypto$/ }, (args) =>
      /node_modules[\\/](undici[\\/]lib[\\/](util[\\/]runtime-features|web[\\/]fetch[\\/]body)|conf[\\/]dist[\\/]source[\\/]index)\.js$/.test(args.importer)
        ? { path: 'crypto', namespace: 'mcat-lazy', pluginData: 'cryptoLazy' }
        : undefined,
    );
    b.onResolve({ filter: /^(node:)?assert$/ }, (args) =>
      /node_modules[\\/]undici[\\/]/.test(args.importer) ? { path: 'assert', namespace: 'mcat-lazy', pluginData: 'assert' } : undefined,
    );
    b.onResolve({ filter: /^\.\.\/llhttp\/llhttp-wasm\.js$/ }, (args) =>
      /node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]/.test(args.importer) ? { path: 'llhttp-wasm', namespace: 'mcat-lazy', pluginData: 'llhttpWasm' } : undefined,
    );
    b.onResolve({ filter: /^\.\.\/llhttp\/llhttp_simd-wasm\.js$/ }, (args) =>
      /node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]/.test(args.importer) ? { path: 'llhttp-simd', namespace: 'mcat-lazy', pluginData: 'llhttpSimd' } : undefined,
    );
    b.onResolve({ filter: /^\.\/llhttp-wasm\.cjs$/, namespace: 'mcat-lazy' }, (args) => ({ path: args.path, external: true }));
    b.onLoad({ filter: /.*/, namespace: 'mcat-lazy' }, (args) => ({
      contents: LAZY_SOURCES[args.pluginData](args.path),
      loader: 'js',
      resolveDir: dirname(args.path),
    }));
  },
};

/**
 * dist/help.cjs: the top-level help with only what it imports statically (the groups' definitions,
 * the global options, the help's layout). The launcher runs it only for the lines argv.ts's
 * topHelp() names; the commands the groups import lazily are left out, and asking for one fails
 * loudly rather than run half a CLI.
 */
const helpOnlyPlugin = {
  name: 'mcat-help-only',
  setup(b) {
    // one module for them all: a command's module is never asked for here
    b.onResolve({ filter: /^\./ }, (args) => (args.kind === 'dynamic-import' ? { path: 'command', namespace: 'mcat-help-absent' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'mcat-help-absent' }, () => ({
      contents: `throw new Error('dist/help.cjs prints the top-level help: it holds no command');`,
      loader: 'js',
    }));
  },
};

/**
 * dist/catalogue.cjs: the whole CLI (main.ts) with only the catalogue groups' commands
 * (CATALOGUE_GROUPS of src/cli/argv.ts, read here from the source): the other groups' commands are
 * left out as help.cjs leaves out every command, and asking for one fails loudly. The launcher runs
 * it for a line of one of those groups (argv.ts bundleFor), which loads no other group's commands:
 * its code cache is ~80 kB smaller than mcat.cjs's for the same read (V8 compiles a bundle's top
 * level whole, every function declared there included), its source 250 kB shorter.
 */
async function catalogueOnlyPlugin() {
  const r = await build({ ...common, sourcemap: false, metafile: false, entryPoints: ['src/cli/argv.ts'], outfile: 'argv.cjs' });
  const mod = { exports: {} };
  new Function('module', 'exports', 'require', r.outputFiles[0].text)(mod, mod.exports, require);
  const groups = mod.exports.CATALOGUE_GROUPS;
  return {
    name: 'mcat-catalogue-only',
    setup(b) {
      b.onResolve({ filter: /^\./ }, (args) => {
        const group = /[\\/]src[\\/]cli[\\/]commands[\\/]([^\\/]+)[\\/]index\.ts$/.exec(args.importer)?.[1];
        return args.kind === 'dynamic-import' && group !== undefined && !groups.includes(group) ? { path: 'command', namespace: 'mcat-catalogue-absent' } : undefined;
      });
      b.onLoad({ filter: /.*/, namespace: 'mcat-catalogue-absent' }, () => ({
        contents: `throw new Error('dist/catalogue.cjs runs the commands of ${groups.join(', ')} only');`,
        loader: 'js',
      }));
    },
  };
}
const catalogueOnly = await catalogueOnlyPlugin();

/**
 * The checkers of the response schemas, made now from the zod schemas (precompiledSource() of
 * src/client/schemas/precompile.ts, bundled and run here), in place of precompiled.ts: a read
 * whose body fits them never loads zod.
 */
async function precompiledPlugin() {
  const r = await build({ ...common, sourcemap: false, metafile: false, entryPoints: ['src/client/schemas/precompile.ts'], outfile: 'precompile.cjs' });
  const mod = { exports: {} };
  new Function('module', 'exports', 'require', r.outputFiles[0].text)(mod, mod.exports, require);
  const contents = mod.exports.precompiledSource();
  return {
    name: 'mcat-precompiled',
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/]client[\\/]schemas[\\/]precompiled\.ts$/ }, () => ({ contents, loader: 'js', resolveDir: join(root, 'src/client/schemas') }));
    },
  };
}
const precompiled = await precompiledPlugin();

async function bundle(name, entry, self, extra = [], pure = false) {
  const r = await build({
    ...common,
    entryPoints: { [name]: entry },
    outdir: dist,
    outExtension: { '.js': '.cjs' },
    minifyIdentifiers: self?.minifyIdentifiers ?? false,
    // splits first: a lazily imported split (chalk) stays a bundle of its own in help.cjs too
    plugins: [splitsPlugin(self, pure), ...extra, lazyBuiltinsPlugin, precompiled],
  });
  return r;
}

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

// `mcat/sandbox`: ES module and CommonJS, each one file (its types: types/sandbox.d.ts, made
// from src/sandbox/public.ts by scripts/sandbox-types.mjs and checked by test/unit/sandbox-api.test.ts)
const apiBuildsP = Promise.all(
  [['esm', '.mjs'], ['cjs', '.cjs']].map(([format, ext]) =>
    build({ ...common, format, write: true, entryPoints: { 'sandbox-api': 'src/sandbox/public.ts' }, outdir: dist, outExtension: { '.js': ext } }),
  ),
);

const results = await Promise.all([
  bundle('mcat', 'src/cli/main.ts'),
  bundle('help', 'src/cli/top-help.ts', undefined, [helpOnlyPlugin]),
  // the CLI for the catalogue's commands alone (see catalogueOnlyPlugin)
  bundle('catalogue', 'src/cli/main.ts', undefined, [catalogueOnly]),
  // a worker thread of a long locker walk (src/cli/locker-readers.ts), loaded by Node's own loader
  bundle('locker-worker', 'src/cli/locker-worker.ts', undefined, [], true),
  bundle('llhttp-wasm', require.resolve('undici/lib/llhttp/llhttp-wasm.js')),
  ...SPLITS.map((s) => bundle(s.out.replace(/\.cjs$/, ''), s.entry ?? s.file ?? s.pkg, s)),
]);

const outputs = [];
const meta = { inputs: {}, outputs: {} };
for (const r of results) {
  for (const f of r.outputFiles) {
    const rel = 'dist/' + f.path.slice(dist.length + 1).replace(/\\/g, '/');
    outputs.push({ rel, contents: f.contents });
  }
  Object.assign(meta.inputs, r.metafile.inputs);
  Object.assign(meta.outputs, r.metafile.outputs);
}
// The code cache is keyed by this id: a rebuilt bundle never meets a cache made for another, nor
// a changed launcher (which reads and writes the cache files) one written by the previous launcher.
const hash = createHash('sha256');
for (const o of outputs.sort((a, b) => a.rel.localeCompare(b.rel))) hash.update(o.rel).update(o.contents);
hash.update(readFileSync(join(root, 'src/launcher/boot.ts')));
const buildId = hash.digest('hex').slice(0, 16);

for (const o of outputs) writeFileSync(join(root, o.rel), o.contents);
writeFileSync(join(dist, 'llhttp_simd.wasm'), require('undici/lib/llhttp/llhttp_simd-wasm.js'), { mode: 0o644 });
// jq-wasm reads its WebAssembly from build/jq.wasm beside its code: beside dist/jq.cjs, then
mkdirSync(join(dist, 'build'), { recursive: true });
copyFileSync(require.resolve('jq-wasm/jq.wasm'), join(dist, 'build/jq.wasm'));
chmodSync(join(dist, 'build/jq.wasm'), 0o644);

const apiBuilds = await apiBuildsP;
writeFileSync(join(dist, 'sandbox-api.meta.json'), JSON.stringify({ inputs: Object.keys(apiBuilds[0].metafile.inputs).sort() }));

const boot = await build({
  ...common,
  write: true,
  entryPoints: ['src/launcher/boot.ts'],
  outfile: join(dist, 'boot.cjs'),
  define: { ...common.define, __MCAT_BUILD_ID__: JSON.stringify(buildId) },
});
for (const [k, v] of Object.entries(boot.metafile.outputs)) meta.outputs[k] = v;
writeFileSync(join(dist, 'meta.json'), JSON.stringify(meta));
