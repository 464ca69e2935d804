// Dead code does not stay: every name a file under src/ exports is used somewhere, by another
// source file, a test, a bench or a script (a name only its own file uses need not be exported,
// but is not dead). A word match, not a type check: it errs on the side of "used".
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const walk = (d: string): string[] =>
  readdirSync(d).flatMap((n) => {
    const p = path.join(d, n);
    return statSync(p).isDirectory() ? walk(p) : /\.(ts|mts|mjs|js|cjs)$/.test(n) ? [p] : [];
  });

it('every exported declaration under src/ is used somewhere', () => {
  const files = ['src', 'test', 'bench', 'scripts', 'types'].flatMap((d) => walk(path.join(root, d)));
  const text = new Map(files.map((f) => [f, readFileSync(f, 'utf8')]));
  const decl = /^export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum|abstract\s+class)\s+([A-Za-z_$][\w$]*)/gm;
  const dead: string[] = [];
  for (const f of files.filter((f) => f.startsWith(path.join(root, 'src') + path.sep))) {
    const own = text.get(f)!;
    for (const m of own.matchAll(decl)) {
      const word = new RegExp(`(?<![\\w$])${m[1].replace(/\$/g, '\\$')}(?![\\w$])`);
      const elsewhere = [...text].some(([g, t]) => g !== f && word.test(t));
      const inOwnFile = own.split(word).length > 2;
      if (!elsewhere && !inOwnFile) dead.push(`${path.relative(root, f)}: ${m[1]}`);
    }
  }
  expect(dead).toEqual([]);
});
