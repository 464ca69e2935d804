// Regenerates completions/ from the built CLI (its registry of command definitions): npm run completions
// (test/e2e/completion.test.ts fails when the files and the command tree drift apart).
import { execFileSync } from 'node:child_process';
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin/mcat');
mkdirSync(path.join(root, 'completions'), { recursive: true });
for (const [shell, file] of [['bash', 'mcat.bash'], ['zsh', '_mcat'], ['fish', 'mcat.fish']]) {
  const text = execFileSync(process.execPath, [bin, 'completion', shell], { encoding: 'utf8' });
  writeFileSync(path.join(root, 'completions', file), text);
  console.error(`wrote completions/${file}`);
}
