// Bundles the CLI into dist/ with code splitting, so each command's heavy modules
// stay in their own chunk and load only when that command runs.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const result = await build({
  entryPoints: { main: 'src/cli/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: false,
  minifySyntax: true,
  legalComments: 'none',
  // native addon: must be resolved from node_modules at run time
  external: ['better-sqlite3'],
  chunkNames: 'chunks/[name]-[hash]',
  banner: {
    // bundled CommonJS dependencies call require(); give them one
    js: "import { createRequire as __mcatCreateRequire } from 'node:module'; const require = __mcatCreateRequire(import.meta.url);",
  },
  define: { __MCAT_VERSION__: JSON.stringify(pkg.version) },
  metafile: true,
  logLevel: 'warning',
});
// Which chunk holds which modules: the start-up test reads it to prove --help loads no heavy module.
writeFileSync(new URL('../dist/meta.json', import.meta.url), JSON.stringify(result.metafile));
writeFileSync(new URL('../dist/version.js', import.meta.url), `export const VERSION = ${JSON.stringify(pkg.version)};\n`);
