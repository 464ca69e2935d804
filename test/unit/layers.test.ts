// The house rules of ARCHITECTURE.md, enforced mechanically: dependencies point one way.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');
const src = path.join(root, 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every relative import of a file, resolved to a path under src/ (static and dynamic imports). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]);
  return specs.map((s) => path.relative(src, path.resolve(path.dirname(file), s)));
}

function layer(rel: string): string {
  return rel.split(path.sep)[0];
}

// layer → layers it may import (besides itself)
const ALLOWED: Record<string, string[]> = {
  client: [],
  output: ['client/errors'],
  config: ['client/errors'],
  bulk: ['client'],
  sandbox: [],
  cli: ['client', 'output', 'config', 'bulk', 'sandbox'],
};

describe('layers', () => {
  const all = files(src).map((f) => ({ file: f, rel: path.relative(src, f) }));

  it('finds the source tree', () => {
    expect(all.length).toBeGreaterThan(20);
  });

  it('every import points the allowed way', () => {
    const bad: string[] = [];
    for (const { file, rel } of all) {
      const from = layer(rel);
      const allowed = ALLOWED[from];
      if (!allowed) continue;
      for (const target of importsOf(file)) {
        const to = layer(target);
        if (to === from) continue;
        const ok = allowed.some((a) => target === a || target.startsWith(a + path.sep) || to === a);
        if (!ok) bad.push(`${rel} imports ${target}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('the sandbox imports nothing of the client or the CLI (independent reading of the spec)', () => {
    const bad = all
      .filter((f) => f.rel.startsWith('sandbox' + path.sep))
      .flatMap((f) => importsOf(f.file).filter((t) => /^(client|cli)/.test(t)).map((t) => `${f.rel} → ${t}`));
    expect(bad).toEqual([]);
  });

  it('src/cli/main.ts imports no heavy module at top level', () => {
    const text = readFileSync(path.join(src, 'cli/main.ts'), 'utf8');
    const top = [...text.matchAll(/^import\s[^;]*?from\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]);
    for (const heavy of ['undici', 'zod', 'conf', 'fast-xml-parser', 'better-sqlite3', 'chalk']) {
      expect(top).not.toContain(heavy);
    }
  });
});
