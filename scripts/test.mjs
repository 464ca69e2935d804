// `npm test`: the build first (the end-to-end tests run the built bin/mcat), then the type check,
// ESLint and the whole vitest suite at the same time. Run one after another, the type check and
// ESLint (~16 s of CPU between them) sat in front of a suite that spends much of its time waiting
// on mcat processes and the sandbox; side by side, they fill those waits.
//
// The steps are the package's own scripts (build, typecheck, lint) and `vitest run` with this
// script's arguments (`npm test -- test/unit`, `npm test -- --reporter=json --outputFile=x.json`).
// vitest's output is shown as it comes, the type check's and ESLint's when they end; then one line
// a step on stderr, with its result and time. The exit code is the first failing step's (build,
// types, lint, tests), 0 when all pass, 130 after Ctrl-C.
import { spawn } from 'node:child_process';
import { constants, setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// npm sets npm_execpath for the scripts it runs; `node scripts/test.mjs` alone finds npm on PATH
const npm = (script) => (process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath, 'run', '--silent', script]] : ['npm', ['run', '--silent', script]]);

const children = new Set();

function step(name, [cmd, args], { live = false, lower = false } = {}) {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    // (set at once: npm starts the script's process later, and it inherits the priority)
    if (lower && child.pid !== undefined) {
      try {
        setPriority(child.pid, 10);
      } catch {
        // not allowed here: the same priority as the tests
      }
    }
    let out = '';
    if (!live) {
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
    }
    child.on('error', (err) => (out += `${cmd}: ${err.message}\n`));
    child.on('close', (code, signal) => {
      children.delete(child);
      if (out) process.stdout.write(out.endsWith('\n') ? out : `${out}\n`);
      resolve({ name, code: code ?? 128 + (constants.signals[signal] ?? 0), ms: performance.now() - t0 });
    });
  });
}

// Ctrl-C reaches the children from the terminal too; this process waits for them, then ends with 130
let interrupted = false;
process.on('SIGINT', () => {
  interrupted = true;
  for (const c of children) c.kill('SIGINT');
});

const say = (r) => `${r.name}: ${r.code === 0 ? 'ok' : `failed (exit ${r.code})`} in ${(r.ms / 1000).toFixed(1)} s`;

const build = await step('build', npm('build'));
if (build.code !== 0 || interrupted) {
  process.stderr.write(`${say(build)}\n`);
  process.exit(interrupted ? 130 : build.code);
}
// the type check and the lint beside the tests, below them in the CPU's favour: the tests wait on
// mcat processes and sandboxes much of the time, which these two fill, and a test's own deadline
// (an answer within the timeout) is not theirs to eat into on 2 cores
const results = await Promise.all([
  step('types', npm('typecheck'), { lower: true }),
  step('lint', npm('lint'), { lower: true }),
  step('tests', [process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', ...process.argv.slice(2)]], { live: true }),
]);
process.stderr.write(`\n${[build, ...results].map(say).join('\n')}\n`);
process.exit(interrupted ? 130 : (results.find((r) => r.code !== 0)?.code ?? 0));
