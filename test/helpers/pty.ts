// Whether util-linux `script` is here to run mcat in a pseudo-terminal (tests skip without it).
import { execFileSync } from 'node:child_process';

export function hasScript(): boolean {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
