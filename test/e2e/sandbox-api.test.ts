// `import { startSandbox } from 'mcat/sandbox'` as a partner's test suite uses it: the package's
// own export (resolved by Node as for an installed package, through the package's self-reference),
// ES module and CommonJS, typed, and loading nothing of the CLI.
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as Declared from 'mcat/sandbox';
import { startSandbox as implementation } from '../../src/sandbox/public';
import { repoRoot } from '../helpers/mcat';

// Compile-time: the published declarations and the implementation agree, both ways.
const declaredFromImpl: typeof Declared.startSandbox = implementation;
const implFromDeclared: typeof implementation = null as unknown as typeof Declared.startSandbox;
void declaredFromImpl;
void implFromDeclared;

/** A consumer's script, run by Node from the package root (where `mcat/sandbox` resolves as for an installed package). */
async function consumer(kind: 'module' | 'commonjs', code: string) {
  // a temp folder of its own: what the consumer finds made in it is its own sandboxes' (tests in
  // other files start sandboxes in the system's at the same time)
  const tmp = mkdtempSync(join(tmpdir(), 'mcat-consumer-'));
  try {
    const r = await execa(process.execPath, ['--input-type', kind, '-e', code], { cwd: repoRoot, reject: false, env: { TMPDIR: tmp } });
    return { ...r, out: r.exitCode === 0 ? JSON.parse(String(r.stdout)) : undefined };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const USE = `
  const sb = await startSandbox();
  const c = sb.credentials;
  const url = sb.baseUrl + '/1.2/release/tracks?releaseId=' + sb.examples.releaseIds[0] + '&country=' + c.country + '&oauth_consumer_key=' + c.consumerKey;
  const r = await fetch(url);
  const body = await r.json();
  const loaded = typeof require === 'function' ? Object.keys(require.cache) : [];
  await sb.stop();
  process.stdout.write(JSON.stringify({ baseUrl: sb.baseUrl, status: r.status, ok: body.status, creds: Object.keys(c).sort(), users: sb.users.length, loaded }));
`;

describe('mcat/sandbox', () => {
  it('an ES module consumer imports startSandbox, calls the API, stops it', async () => {
    const r = await consumer('module', `import { startSandbox } from 'mcat/sandbox';\n${USE}`);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.out).toMatchObject({ status: 200, ok: 'ok', creds: ['consumerKey', 'consumerSecret', 'country', 'token', 'tokenSecret', 'userId'] });
    expect(r.out.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(r.out.users).toBeGreaterThan(1);
  });

  it('a CommonJS consumer requires it; nothing of the CLI is loaded', async () => {
    const r = await consumer('commonjs', `const { startSandbox } = require('mcat/sandbox');\n(async () => {${USE}})();`);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.out).toMatchObject({ status: 200, ok: 'ok' });
    const ours = r.out.loaded.filter((f: string) => !f.includes('node_modules'));
    expect(ours.map((f: string) => f.slice(repoRoot.length + 1))).toEqual(['dist/sandbox-api.cjs']);
    expect(r.out.loaded.filter((f: string) => /commander|undici|chalk|cli-table3|[\\/]conf[\\/]/.test(f))).toEqual([]);
  });

  it('the bundle holds the sandbox only; its declarations are the ones made from the source', async () => {
    const meta = JSON.parse(readFileSync(join(repoRoot, 'dist/sandbox-api.meta.json'), 'utf8')) as { inputs: string[] };
    expect(meta.inputs.length).toBeGreaterThan(5);
    expect(meta.inputs.filter((f) => !f.startsWith('src/sandbox/'))).toEqual([]);
    const check = await execa(process.execPath, ['scripts/sandbox-types.mjs', '--check'], { cwd: repoRoot, reject: false });
    expect(check.exitCode, String(check.stderr)).toBe(0);
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
    for (const f of Object.values(pkg.exports['./sandbox']) as string[]) expect(existsSync(join(repoRoot, f)), f).toBe(true);
    expect(pkg.files).toContain('types');
  });

  it('a temporary data dir is removed by stop(); a given one is kept and advertised for mcat to find', async () => {
    const r = await consumer(
      'module',
      `import { startSandbox } from 'mcat/sandbox';
       import { existsSync, mkdtempSync, rmSync } from 'node:fs';
       import { tmpdir } from 'node:os';
       import { join } from 'node:path';
       const mine = mkdtempSync(join(tmpdir(), 'mcat-api-'));
       const a = await startSandbox({ dataDir: mine, seed: 5 });
       const advertised = existsSync(join(mine, 'server.json'));
       await a.stop();
       const kept = existsSync(join(mine, 'sandbox.db'));
       rmSync(mine, { recursive: true, force: true });
       const before = new Set((await import('node:fs')).readdirSync(tmpdir()).filter((n) => n.startsWith('mcat-sandbox-')));
       const b = await startSandbox();
       const made = (await import('node:fs')).readdirSync(tmpdir()).filter((n) => n.startsWith('mcat-sandbox-') && !before.has(n));
       await b.stop();
       const gone = made.every((n) => !existsSync(join(tmpdir(), n)));
       let bad;
       try { await startSandbox({ faults: 'explode=1' }); } catch (e) { bad = e.message; }
       process.stdout.write(JSON.stringify({ advertised, kept, made: made.length, gone, bad }));`,
    );
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.out).toMatchObject({ advertised: true, kept: true, made: 1, gone: true });
    expect(r.out.bad).toMatch(/unknown --faults item/);
  });
});
