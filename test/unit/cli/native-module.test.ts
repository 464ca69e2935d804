// Errors from outside mcat's own classes that still deserve one clear line and a hint.
import { describe, expect, it } from 'vitest';
import { exitCodeFor, formatError } from '../../../src/cli/errors';

/** Node's own error when an addon was compiled for another Node (text as Node 24 words it). */
function dlopenError(module: string): Error {
  const e = new Error(
    `The module '/x/node_modules/${module}'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires\nNODE_MODULE_VERSION 137. Please try re-compiling or re-installing\nthe module (for instance, using \`npm rebuild\` or \`npm install\`).`,
  );
  (e as Error & { code: string }).code = 'ERR_DLOPEN_FAILED';
  return e;
}

describe('formatError', () => {
  it("the sandbox's SQLite module built for another Node: one line naming both ABIs, and the fix", () => {
    const text = formatError(dlopenError('better-sqlite3/build/Release/better_sqlite3.node'));
    const lines = text.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(
      `mcat: the sandbox's SQLite module (better-sqlite3) was built for another Node.js version (ABI 115; Node ${process.version} needs 137)`,
    );
    expect(lines[1]).toBe("hint: run 'npm rebuild better-sqlite3' in mcat's folder, or use a profile with a real API");
    expect(exitCodeFor(dlopenError('better-sqlite3/x.node'))).toBe(1);
  });

  it('another addon: the same line, a general hint', () => {
    const text = formatError(dlopenError('other/build/other.node'));
    expect(text).toBe(
      `mcat: a native module was built for another Node.js version (ABI 115; Node ${process.version} needs 137)\nhint: run 'npm rebuild' in mcat's folder`,
    );
  });

  // npm 12 skips a dependency's install script unless package.json's allowScripts names it, and
  // `npm install --ignore-scripts` skips them all: better-sqlite3 is then never compiled, and the
  // \`bindings\` package says so with every path it tried (13 of them) on one long message
  it("the sandbox's SQLite module never built: one line, and the fix", () => {
    const tries = ['build/better_sqlite3.node', 'build/Release/better_sqlite3.node', 'lib/binding/node-v137-linux-x64/better_sqlite3.node'];
    const e = new Error(`Could not locate the bindings file. Tried:\n${tries.map((t) => ` → /x/node_modules/better-sqlite3/${t}`).join('\n')}`);
    (e as Error & { tries: string[] }).tries = tries;
    expect(formatError(e)).toBe(
      "mcat: the sandbox's SQLite module (better-sqlite3) is not built: its install script did not run\n" +
        "hint: run 'npm rebuild better-sqlite3' in mcat's folder (npm 12 runs the install scripts package.json's allowScripts names), or use a profile with a real API",
    );
    expect(exitCodeFor(e)).toBe(1);
    expect(formatError(new Error('Could not locate the bindings file. Tried:\n → /x/node_modules/other/build/other.node'))).toBe(
      "mcat: a native module is not built: its install script did not run\nhint: run 'npm rebuild' in mcat's folder",
    );
  });

  it('any other error is still an unexpected one', () => {
    const e = new Error('boom');
    (e as Error & { code: string }).code = 'ERR_DLOPEN_FAILED';
    expect(formatError(e)).toBe('mcat: unexpected error: boom');
  });
});
