// Start-up stays lean: --help and --version load none of the heavy modules (the esbuild
// metafile tells which bundle chunk holds which package).
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { binPath, mcatEnv, repoRoot } from '../helpers/mcat';

const HEAVY = ['undici', 'zod', 'conf', 'cli-table3', 'fast-xml-parser', 'better-sqlite3', 'chalk', 'oauth-1.0a'];

function packagesIn(chunkPath: string, meta: { outputs: Record<string, { inputs: Record<string, unknown> }> }): string[] {
  const out = meta.outputs[chunkPath];
  if (!out) return [];
  const pkgs = new Set<string>();
  for (const input of Object.keys(out.inputs)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    if (m) pkgs.add(m[1]);
  }
  return [...pkgs];
}

async function loadedPackages(args: string[]): Promise<{ pkgs: string[]; stdout: string; exitCode: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'mcat-loads-'));
  const log = join(dir, 'loads.txt');
  const r = await execa(process.execPath, ['--import', join(repoRoot, 'test/helpers/trace-loads.mjs'), binPath, ...args], {
    reject: false,
    env: { ...mcatEnv(), MCAT_TRACE_LOADS: log },
  });
  const meta = JSON.parse(readFileSync(join(repoRoot, 'dist/meta.json'), 'utf8'));
  let urls: string[] = [];
  try {
    urls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  } catch {
    // nothing resolved beyond the entry
  }
  const pkgs = new Set<string>();
  for (const u of urls) {
    if (u.startsWith('node:')) continue;
    if (u.includes('/node_modules/')) {
      const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u);
      if (m) pkgs.add(m[1]);
      continue;
    }
    const i = u.indexOf('/dist/');
    if (i >= 0) for (const p of packagesIn('dist/' + u.slice(i + 6), meta)) pkgs.add(p);
  }
  return { pkgs: [...pkgs], stdout: r.stdout, exitCode: r.exitCode ?? -1 };
}

describe('start-up', () => {
  it('mcat --version prints the version and loads no heavy module', async () => {
    const r = await loadedPackages(['--version']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version);
    for (const h of HEAVY) expect(r.pkgs).not.toContain(h);
  });

  it('mcat --help and a subcommand --help load no heavy module', async () => {
    for (const args of [['--help'], ['release', 'batch', '--help'], ['locker', '--help']]) {
      const r = await loadedPackages(args);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toMatch(/Usage: mcat/);
      for (const h of HEAVY) expect(r.pkgs, `${args.join(' ')} loaded ${h}`).not.toContain(h);
      expect(r.pkgs).toContain('commander');
    }
  });

  it('a catalogue read does load the client (the trace sees chunks)', async () => {
    const r = await loadedPackages(['release', 'batch', 'x']);
    // a usage error: still no network modules needed
    expect(r.exitCode).toBe(2);
    for (const h of ['undici', 'better-sqlite3']) expect(r.pkgs).not.toContain(h);
  });
});
