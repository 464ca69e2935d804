// npm 12 runs a dependency's install script only when package.json's allowScripts names it: a
// dependency whose script is skipped installs without error and fails later (better-sqlite3
// uncompiled: the default sandbox could not open its database). Every package the lockfile marks
// as having an install script is named there, allowed or denied on purpose.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };

describe('allowScripts', () => {
  const withScripts = Object.entries(lock.packages)
    .filter(([path, p]) => path !== '' && p.hasInstallScript)
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));

  it('names every dependency the lockfile says has an install script', () => {
    expect(withScripts).toContain('better-sqlite3');
    const named = Object.keys(pkg.allowScripts ?? {}).map((k) => k.replace(/(?!^)@.*$/, ''));
    expect(withScripts.filter((name) => !named.includes(name))).toEqual([]);
  });

  it('allows better-sqlite3 (it compiles or fetches the sandbox’s SQLite) and esbuild (the build)', () => {
    expect(pkg.allowScripts?.['better-sqlite3']).toBe(true);
    expect(pkg.allowScripts?.esbuild).toBe(true);
  });
});
